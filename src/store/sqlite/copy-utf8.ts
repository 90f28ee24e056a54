import { copyRefused } from '../copy-check.js';
import type { CopyRow, CopyTable } from '../copy.js';
import type { Sqlite } from './client.js';

/**
 * SQLite stores whatever bytes a TEXT value was given, and better-sqlite3 reads invalid UTF-8
 * (e.g. a lone surrogate an older version stored as ED A0 80) back as U+FFFD: two different
 * stored ids can read as one, and the copy would write a repaired value or hit a unique key.
 * A batch holding U+FFFD is read again as bytes to tell a real U+FFFD from a repaired one.
 */

const quote = (name: string): string => `"${name.replaceAll('"', '""')}"`;
const utf8 = new TextDecoder('utf-8', { fatal: true });

const REPLACEMENT = '\ufffd';

function why(bytes: Uint8Array): string {
  for (let i = 0; i + 2 < bytes.length; i++) {
    if (bytes[i] === 0xed && (bytes[i + 1] ?? 0) >= 0xa0) {
      const hex = [...bytes.subarray(i, i + 3)].map((b) => b.toString(16).toUpperCase().padStart(2, '0')).join(' ');
      return `holds a lone surrogate stored as the bytes ${hex}, which is not valid UTF-8`;
    }
  }
  return 'holds bytes that are not valid UTF-8';
}

/**
 * `rows` were read by `SELECT … FROM t [WHERE (key) > (after)] ORDER BY key LIMIT limit`; the same
 * query with every text column as a blob gives the same rows in the same order (one snapshot).
 */
export function refuseInvalidUtf8(
  db: Sqlite,
  t: CopyTable,
  after: unknown[] | null,
  limit: number,
  rows: readonly CopyRow[],
): void {
  if (!rows.some((row) => row.some((v) => typeof v === 'string' && v.includes(REPLACEMENT)))) return;
  const keys = t.key.map(quote).join(', ');
  const where = after === null ? '' : `WHERE (${keys}) > (${t.key.map(() => '?').join(', ')})`;
  const cols = t.columns.map((c) => (c.type === 'text' ? `CAST(${quote(c.name)} AS BLOB)` : 'NULL')).join(', ');
  const raw = db
    .prepare(`SELECT ${cols} FROM ${quote(t.name)} ${where} ORDER BY ${keys} LIMIT ?`)
    .raw(true)
    .all(...(after ?? []), limit) as unknown[][];
  for (const [r, row] of raw.entries()) {
    for (const [i, v] of row.entries()) {
      if (!(v instanceof Uint8Array)) continue;
      try {
        utf8.decode(v);
      } catch {
        throw copyRefused(t, rows[r] ?? [], t.columns[i]?.name ?? '?', why(v));
      }
    }
  }
}
