import type { SealedColumn, SealedRow } from '../store.js';
import type { Db } from './db.js';

/**
 * What the vault needs from the database: `meta` values (key check value, rotation state) and the
 * sealed columns a key rotation re-encrypts. Every sealed column is in COLUMNS: a new encrypted
 * column must be added here and to SEALED_COLUMNS (store.ts), or a rotation would strand it.
 */

export async function getMeta(db: Db, key: string): Promise<string | undefined> {
  return (await db.get<{ value: string }>('SELECT value FROM meta WHERE key = @key', { key }))?.value;
}

export async function setMeta(db: Db, key: string, value: string): Promise<void> {
  await db.run(
    'INSERT INTO meta (key, value) VALUES (@key, @value) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
    {
      key,
      value,
    },
  );
}

/**
 * Insert unless present; the value there afterwards (the first writer wins). On PostgreSQL a
 * concurrent insert of the same key makes this one wait and then do nothing; the following read
 * (a new snapshot) sees the winner's value.
 */
export async function claimMeta(db: Db, key: string, value: string): Promise<string> {
  await db.run('INSERT INTO meta (key, value) VALUES (@key, @value) ON CONFLICT (key) DO NOTHING', { key, value });
  return (await getMeta(db, key)) ?? value;
}

export async function deleteMeta(db: Db, key: string): Promise<void> {
  await db.run('DELETE FROM meta WHERE key = @key', { key });
}

/** Whether the database holds anything a vault key sealed (or will need one to read). */
export async function holdsSealedData(db: Db): Promise<boolean> {
  const row = await db.get<{ held: number }>(
    `SELECT CASE WHEN EXISTS (SELECT 1 FROM merchants) OR EXISTS (SELECT 1 FROM cards)
       OR EXISTS (SELECT 1 FROM meta WHERE key = 'vault_kcv') THEN 1 ELSE 0 END AS held`,
  );
  return row?.held === 1;
}

/** One sealed value to test a key against, if the database has any. */
export async function anySealedValue(db: Db): Promise<string | undefined> {
  const m = await db.get<{ v: string }>('SELECT secret_enc AS v FROM merchants LIMIT 1');
  if (m) return m.v;
  return (await db.get<{ v: string }>('SELECT pan_enc AS v FROM cards LIMIT 1'))?.v;
}

const COLUMNS: Record<SealedColumn, { table: string; key: string; column: string }> = {
  'cards.pan_enc': { table: 'cards', key: 'id', column: 'pan_enc' },
  'merchants.secret_enc': { table: 'merchants', key: 'id', column: 'secret_enc' },
  'merchants.prev_secret_enc': { table: 'merchants', key: 'id', column: 'prev_secret_enc' },
  'merchants.stripe_secret_key_enc': { table: 'merchants', key: 'id', column: 'stripe_secret_key_enc' },
  'merchants.stripe_webhook_secret_enc': { table: 'merchants', key: 'id', column: 'stripe_webhook_secret_enc' },
};

/** The next batch of a column's sealed values after `afterId`, in byte order of the key, so the walk is total. */
export function sealedBatch(db: Db, name: SealedColumn, afterId: string, limit: number): Promise<SealedRow[]> {
  const col = COLUMNS[name];
  const key = db.dialect.bytewise(col.key);
  return db.all(
    `SELECT ${col.key} AS id, ${col.column} AS sealed FROM ${col.table}
     WHERE ${key} > ${db.dialect.bytewise('CAST(@afterId AS TEXT)')} AND ${col.column} IS NOT NULL ORDER BY ${key} LIMIT @limit`,
    { afterId, limit },
  );
}

export async function updateSealed(db: Db, name: SealedColumn, id: string, sealed: string): Promise<void> {
  const col = COLUMNS[name];
  await db.run(`UPDATE ${col.table} SET ${col.column} = @sealed WHERE ${col.key} = @id`, { sealed, id });
}

export async function countSealed(db: Db): Promise<number> {
  let n = 0;
  for (const c of Object.values(COLUMNS)) {
    n += (await db.get<{ n: number }>(`SELECT count(*) AS n FROM ${c.table} WHERE ${c.column} IS NOT NULL`))?.n ?? 0;
  }
  return n;
}
