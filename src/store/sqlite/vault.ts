import type { SealedColumn, SealedRow } from '../store.js';
import type { Sqlite } from './client.js';
import { prepared } from './prepared.js';

/**
 * What the vault needs from the database: `meta` values (key check value, rotation state) and the
 * sealed columns a key rotation re-encrypts. Every sealed column of the schema is in COLUMNS: a new
 * encrypted column must be added here and to SEALED_COLUMNS (store.ts), or a rotation would strand it.
 */

export function getMeta(sqlite: Sqlite, key: string): string | undefined {
  return (prepared(sqlite, 'SELECT value FROM meta WHERE key = ?').get(key) as { value: string } | undefined)?.value;
}

export function setMeta(sqlite: Sqlite, key: string, value: string): void {
  prepared(
    sqlite,
    'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
  ).run(key, value);
}

/** Insert unless present; returns the value that is there afterwards (first writer wins). */
export function claimMeta(sqlite: Sqlite, key: string, value: string): string {
  prepared(sqlite, 'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING').run(key, value);
  return getMeta(sqlite, key) ?? value;
}

export function deleteMeta(sqlite: Sqlite, key: string): void {
  prepared(sqlite, 'DELETE FROM meta WHERE key = ?').run(key);
}

/** Whether the database holds anything a vault key sealed (or will need one to read). */
export function holdsSealedData(sqlite: Sqlite): boolean {
  return (
    sqlite.prepare('SELECT 1 FROM merchants LIMIT 1').get() !== undefined ||
    sqlite.prepare('SELECT 1 FROM cards LIMIT 1').get() !== undefined ||
    getMeta(sqlite, 'vault_kcv') !== undefined
  );
}

/** One sealed value to test a key against, if the database has any. */
export function anySealedValue(sqlite: Sqlite): string | undefined {
  const m = sqlite.prepare('SELECT secret_enc AS v FROM merchants LIMIT 1').get() as { v: string } | undefined;
  if (m) return m.v;
  return (sqlite.prepare('SELECT pan_enc AS v FROM cards LIMIT 1').get() as { v: string } | undefined)?.v;
}

const COLUMNS: Record<SealedColumn, { table: string; key: string; column: string }> = {
  'cards.pan_enc': { table: 'cards', key: 'id', column: 'pan_enc' },
  'merchants.secret_enc': { table: 'merchants', key: 'id', column: 'secret_enc' },
  'merchants.prev_secret_enc': { table: 'merchants', key: 'id', column: 'prev_secret_enc' },
  'merchants.stripe_secret_key_enc': { table: 'merchants', key: 'id', column: 'stripe_secret_key_enc' },
  'merchants.stripe_webhook_secret_enc': { table: 'merchants', key: 'id', column: 'stripe_webhook_secret_enc' },
};

/** The next batch of a column's sealed values after `afterId`, in key order (a rotation walks them). */
export function sealedBatch(sqlite: Sqlite, name: SealedColumn, afterId: string, limit: number): SealedRow[] {
  const col = COLUMNS[name];
  return sqlite
    .prepare(
      `SELECT ${col.key} AS id, ${col.column} AS sealed FROM ${col.table} WHERE ${col.key} > ? AND ${col.column} IS NOT NULL ORDER BY ${col.key} LIMIT ?`,
    )
    .all(afterId, limit) as SealedRow[];
}

export function updateSealed(sqlite: Sqlite, name: SealedColumn, id: string, sealed: string): void {
  const col = COLUMNS[name];
  prepared(sqlite, `UPDATE ${col.table} SET ${col.column} = ? WHERE ${col.key} = ?`).run(sealed, id);
}

export function countSealed(sqlite: Sqlite): number {
  return Object.values(COLUMNS).reduce(
    (n, c) => n + Number(sqlite.prepare(`SELECT count(*) FROM ${c.table} WHERE ${c.column} IS NOT NULL`).pluck().get()),
    0,
  );
}

/** Old ciphertexts linger in free pages and the WAL until overwritten: checkpoint, vacuum, checkpoint. */
export function compact(sqlite: Sqlite): void {
  sqlite.pragma('wal_checkpoint(TRUNCATE)');
  sqlite.exec('VACUUM');
  sqlite.pragma('wal_checkpoint(TRUNCATE)');
}
