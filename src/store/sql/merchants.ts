import type { MerchantRow } from '../store.js';
import { merchants } from '../tables/index.js';
import { insertRow, patchKeys, selectFrom, setList } from '../tables/rows.js';
import { moveSequenceSql, type SequenceColumn, takeSequenceSql, type TakenNumber } from '../sequence-sql.js';
import type { Db } from './db.js';

const SELECT = selectFrom(merchants);

/** Every API request looks its merchant up: one prepared statement per connection. */
export function getMerchant(db: Db, id: string): Promise<MerchantRow | undefined> {
  return db.get(`${SELECT} WHERE id = @id`, { id });
}

/**
 * By the current apiKey, else by the previous one (rotated within 24 h: the caller checks
 * prevApiKeyUntil). Two indexed lookups rather than an OR: the usual hit costs one.
 */
export async function getMerchantByApiKey(db: Db, apiKey: string): Promise<MerchantRow | undefined> {
  return (
    (await db.get<MerchantRow>(`${SELECT} WHERE api_key = @apiKey`, { apiKey })) ??
    (await db.get<MerchantRow>(`${SELECT} WHERE prev_api_key = @apiKey`, { apiKey }))
  );
}

export function listMerchantRows(db: Db): Promise<MerchantRow[]> {
  return db.all(`${SELECT} ORDER BY created_at, ${db.dialect.bytewise('id')}`);
}

export async function anyStripeMerchant(db: Db): Promise<boolean> {
  return (await db.get('SELECT 1 AS one FROM merchants WHERE stripe_secret_key_enc IS NOT NULL LIMIT 1')) !== undefined;
}

export async function insertMerchant(db: Db, row: MerchantRow): Promise<void> {
  await db.run(insertRow(merchants), row);
}

export async function updateMerchantRow(db: Db, id: string, patch: Partial<Omit<MerchantRow, 'id'>>): Promise<void> {
  const keys = patchKeys(merchants, patch, ['id']);
  if (keys.length === 0) return;
  await db.run(`UPDATE merchants SET ${setList(keys)} WHERE id = @id`, { ...patch, id });
}

/** Moves a document sequence forward: undefined when moved, else the sequence's next number (already past). */
export async function moveDocumentSequence(
  db: Db,
  merchantId: string,
  which: SequenceColumn,
  requested: number,
): Promise<number | undefined> {
  const sql = moveSequenceSql(which);
  if ((await db.run(sql.move, { id: merchantId, requested })) === 1) return undefined;
  return (await db.get<{ next: number }>(sql.current, { id: merchantId }))?.next;
}

/** Takes the next document number inside the issuing unit of work (sequence-sql.ts says why it is gap-free). */
export function takeDocumentNumber(
  db: Db,
  merchantId: string,
  which: SequenceColumn,
): Promise<TakenNumber | undefined> {
  return db.get<TakenNumber>(takeSequenceSql(which), { id: merchantId });
}
