import { notAllowed, type PaygateError } from '../domain/errors.js';
import { escapeLoneSurrogates, hasLoneSurrogate } from '../domain/text.js';
import type { CopyRow, CopyTable, CopyTarget } from './copy.js';

/**
 * `db copy` meets values an older version stored that the target cannot hold (SPEC §3): text that
 * is not valid UTF-8 or holds a lone surrogate (SQLite keeps the bytes it was given; PostgreSQL
 * refuses them, or, read back as U+FFFD, two different ids collide on a unique key) and the NUL
 * character (PostgreSQL text cannot hold it). Such a copy stops before the value is written,
 * naming the table, the row (its primary key) and the column, and the target is left as it was:
 * an operator can find the row, while a bare driver error (9999) would say neither.
 */

/** `id=txn_…` or `merchant_id=…, scope=…`: the row as the operator would look it up. */
export function rowName(table: CopyTable, row: CopyRow): string {
  return table.key
    .map((k) => `${k}=${escapeLoneSurrogates(String(row[table.columns.findIndex((c) => c.name === k)] ?? 'NULL'))}`)
    .join(', ');
}

export function copyRefused(table: CopyTable, row: CopyRow, column: string, why: string): PaygateError {
  return notAllowed(
    `db copy stopped: table ${table.name}, row ${rowName(table, row)}, column ${column} ${why}; ` +
      'nothing was copied (the target is as it was). Correct or remove that value in the source, then copy again',
  );
}

/** What is wrong with a text value for the target, if anything (SQLite can store U+0000). */
function textProblem(text: string, postgres: boolean): string | undefined {
  if (postgres && text.includes('\u0000'))
    return 'holds the NUL character (U+0000), which PostgreSQL text cannot store';
  if (hasLoneSurrogate(text)) return 'holds a lone surrogate, which is not valid Unicode text';
  return undefined;
}

/** Refuse the first text value of a batch that the target could not store exactly. */
export function checkCopyText(table: CopyTable, rows: readonly CopyRow[], target: { postgres: boolean }): void {
  for (const row of rows) {
    for (const [i, col] of table.columns.entries()) {
      const v = row[i];
      if (typeof v !== 'string') continue;
      const why = textProblem(v, target.postgres);
      if (why) throw copyRefused(table, row, col.name, why);
    }
  }
}

/** SQLSTATE classes 22 (data exception) and 23 (integrity constraint), SQLite's constraint codes. */
function isRefusedValue(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (/^2[23][0-9A-Z]{3}$/.test(code) || code.startsWith('SQLITE_CONSTRAINT'));
}

/**
 * Insert a batch; when the target refuses one of its values, find the row by inserting the batch
 * one row at a time (the failed batch wrote nothing; the caller empties the target afterwards)
 * and name it. Other failures (a lost connection) are passed on as they are.
 */
export async function insertOrName(target: CopyTarget, table: CopyTable, rows: CopyRow[]): Promise<void> {
  try {
    await target.insertBatch(table, rows);
  } catch (e) {
    if (!isRefusedValue(e)) throw e;
    for (const row of rows) {
      try {
        await target.insertBatch(table, [row]);
      } catch (one) {
        if (!isRefusedValue(one)) throw one;
        throw notAllowed(
          `db copy stopped: table ${table.name}, row ${rowName(table, row)}: the target refused it (${(one as Error).message}); ` +
            'nothing was copied (the target is as it was)',
        );
      }
    }
    throw e;
  }
}
