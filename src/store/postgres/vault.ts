import type { SealedColumn, SealedRow } from '../store.js';
import { all, get, run, type Conn } from './query.js';

/** `meta` values and the sealed columns a key rotation re-encrypts (the same set as the SQLite engine's). */

export async function getMeta(db: Conn, key: string): Promise<string | undefined> {
  return (await get<{ value: string }>(db, 'SELECT value FROM meta WHERE key = @key', { key }))?.value;
}

export async function setMeta(db: Conn, key: string, value: string): Promise<void> {
  await run(
    db,
    'INSERT INTO meta (key, value) VALUES (@key, @value) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
    { key, value },
  );
}

/**
 * Insert unless present; the value there afterwards. A concurrent insert of the same key makes
 * this one wait and then do nothing; the following read (a new snapshot) sees the winner's value.
 */
export async function claimMeta(db: Conn, key: string, value: string): Promise<string> {
  await run(db, 'INSERT INTO meta (key, value) VALUES (@key, @value) ON CONFLICT (key) DO NOTHING', { key, value });
  return (await getMeta(db, key)) ?? value;
}

export async function deleteMeta(db: Conn, key: string): Promise<void> {
  await run(db, 'DELETE FROM meta WHERE key = @key', { key });
}

export async function holdsSealedData(db: Conn): Promise<boolean> {
  const row = await get<{ held: boolean }>(
    db,
    `SELECT EXISTS (SELECT 1 FROM merchants) OR EXISTS (SELECT 1 FROM cards)
       OR EXISTS (SELECT 1 FROM meta WHERE key = 'vault_kcv') AS held`,
  );
  return row?.held === true;
}

export async function anySealedValue(db: Conn): Promise<string | undefined> {
  const m = await get<{ v: string }>(db, 'SELECT secret_enc AS v FROM merchants LIMIT 1');
  if (m) return m.v;
  return (await get<{ v: string }>(db, 'SELECT pan_enc AS v FROM cards LIMIT 1'))?.v;
}

const COLUMNS: Record<SealedColumn, { table: string; key: string; column: string }> = {
  'cards.pan_enc': { table: 'cards', key: 'id', column: 'pan_enc' },
  'merchants.secret_enc': { table: 'merchants', key: 'id', column: 'secret_enc' },
  'merchants.prev_secret_enc': { table: 'merchants', key: 'id', column: 'prev_secret_enc' },
  'merchants.stripe_secret_key_enc': { table: 'merchants', key: 'id', column: 'stripe_secret_key_enc' },
  'merchants.stripe_webhook_secret_enc': { table: 'merchants', key: 'id', column: 'stripe_webhook_secret_enc' },
};

/** Key order is byte order (COLLATE "C"), whatever the database's collation, so the walk is total. */
export function sealedBatch(db: Conn, name: SealedColumn, afterId: string, limit: number): Promise<SealedRow[]> {
  const col = COLUMNS[name];
  return all(
    db,
    `SELECT ${col.key} AS id, ${col.column} AS sealed FROM ${col.table}
     WHERE ${col.key} COLLATE "C" > @afterId::text COLLATE "C" AND ${col.column} IS NOT NULL ORDER BY ${col.key} COLLATE "C" LIMIT @limit`,
    { afterId, limit },
  );
}

export async function updateSealed(db: Conn, name: SealedColumn, id: string, sealed: string): Promise<void> {
  const col = COLUMNS[name];
  await run(db, `UPDATE ${col.table} SET ${col.column} = @sealed WHERE ${col.key} = @id`, { sealed, id });
}

export async function countSealed(db: Conn): Promise<number> {
  let n = 0;
  for (const c of Object.values(COLUMNS)) {
    n += (await get<{ n: number }>(db, `SELECT count(*) AS n FROM ${c.table} WHERE ${c.column} IS NOT NULL`))?.n ?? 0;
  }
  return n;
}
