/**
 * SPEC §3: text is valid Unicode. A JSON string may spell a lone surrogate (`"\ud800"` unpaired),
 * which no UTF-8 text can hold: SQLite would store invalid bytes (read back as U+FFFD, so two
 * different ids become one) and PostgreSQL would repair it to U+FFFD. Both engines must hold
 * exactly what was sent, so such text is refused before anything is stored.
 */

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export function hasLoneSurrogate(text: string): boolean {
  return LONE_SURROGATE.test(text);
}

/**
 * U+0000: PostgreSQL cannot store it in text, so one engine would keep it and the other fail.
 * No parameter may hold it, at any depth, also inside a JSON document sent as a string.
 */
export function hasNul(text: string): boolean {
  return text.includes('\u0000');
}

/**
 * The path of the first string — an object key or a value, at any depth — that `bad` finds
 * wrong; a key is reported as its own path (the field that is wrong is its name).
 */
export function badTextPath(
  value: unknown,
  bad: (text: string) => boolean,
  path: readonly PropertyKey[] = [],
): PropertyKey[] | undefined {
  if (typeof value === 'string') return bad(value) ? [...path] : undefined;
  if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) {
      const found = badTextPath(v, bad, [...path, i]);
      if (found) return found;
    }
    return undefined;
  }
  if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (bad(k)) return [...path, k];
      const found = badTextPath(v, bad, [...path, k]);
      if (found) return found;
    }
  }
  return undefined;
}

/** Text safe to print and to send as JSON: each lone surrogate written as its `\uXXXX` escape. */
export function escapeLoneSurrogates(text: string): string {
  return text.replace(
    new RegExp(LONE_SURROGATE.source, 'g'),
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/**
 * A JSON body may carry a lone surrogate as raw bytes (`ED A0 80`, how WTF-8/CESU-8 writers spell
 * `\ud800`). That is not UTF-8, but refusing the whole body as malformed would not name the field:
 * decode such bytes to the lone surrogate they spell, so the field check (1001) names it. Any
 * other invalid byte, or two such surrogates that would pair up (CESU-8 for a valid character,
 * which would otherwise be silently repaired), still leaves the body undecodable (undefined).
 */
const strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

const isEncodedSurrogate = (b: Uint8Array, i: number): boolean =>
  b[i] === 0xed &&
  (b[i + 1] ?? 0) >= 0xa0 &&
  (b[i + 1] ?? 0) <= 0xbf &&
  (b[i + 2] ?? 0) >= 0x80 &&
  (b[i + 2] ?? 0) <= 0xbf;

export function decodeWithLoneSurrogates(bytes: Uint8Array): string | undefined {
  const parts: string[] = [];
  let start = 0;
  let lastHighEnd = -1;
  try {
    for (let i = 0; i + 2 < bytes.length; i++) {
      if (!isEncodedSurrogate(bytes, i)) continue;
      const unit = 0xd000 | (((bytes[i + 1] ?? 0) & 0x3f) << 6) | ((bytes[i + 2] ?? 0) & 0x3f);
      if (unit >= 0xdc00 && lastHighEnd === i) return undefined;
      parts.push(strict.decode(bytes.subarray(start, i)), String.fromCharCode(unit));
      start = i + 3;
      lastHighEnd = unit < 0xdc00 ? start : -1;
      i += 2;
    }
    parts.push(strict.decode(bytes.subarray(start)));
  } catch {
    return undefined;
  }
  return parts.join('');
}

/** UTF-8, except that a lone surrogate is written as its three bytes: the inverse of the decoder above. */
export function encodeWithLoneSurrogates(text: string): Buffer {
  if (!hasLoneSurrogate(text)) return Buffer.from(text, 'utf8');
  const out: Buffer[] = [];
  let start = 0;
  for (const m of text.matchAll(new RegExp(LONE_SURROGATE.source, 'g'))) {
    const c = text.charCodeAt(m.index);
    out.push(
      Buffer.from(text.slice(start, m.index), 'utf8'),
      Buffer.from([0xe0 | (c >> 12), 0x80 | ((c >> 6) & 0x3f), 0x80 | (c & 0x3f)]),
    );
    start = m.index + 1;
  }
  out.push(Buffer.from(text.slice(start), 'utf8'));
  return Buffer.concat(out);
}
