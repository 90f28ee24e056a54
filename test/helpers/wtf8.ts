/**
 * UTF-8, except that a lone surrogate is encoded like any other code point (ED A0 80 for U+D800):
 * the bytes an older better-sqlite3 stored for such text. Tests write them as a blob cast to text,
 * because today's driver on Node 24 turns a lone surrogate into U+FFFD before SQLite sees it.
 */
export function wtf8(text: string): Buffer {
  const parts: Buffer[] = [];
  for (const ch of text) {
    const cp = ch.codePointAt(0) ?? 0;
    parts.push(
      cp >= 0xd800 && cp <= 0xdfff
        ? Buffer.from([0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f)])
        : Buffer.from(ch, 'utf8'),
    );
  }
  return Buffer.concat(parts);
}
