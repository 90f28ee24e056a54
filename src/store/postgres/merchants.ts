import type { MerchantRow } from '../store.js';
import { merchants } from '../tables/index.js';
import { insertRow, patchKeys, selectFrom, setList } from '../tables/rows.js';
import { all, get, run, type Conn } from './query.js';
import { moveSequenceSql, type SequenceColumn, takeSequenceSql, type TakenNumber } from '../sequence-sql.js';

const SELECT = selectFrom(merchants);

export function getMerchant(db: Conn, id: string): Promise<MerchantRow | undefined> {
  return get(db, `${SELECT} WHERE id = @id`, { id });
}

/**
 * By the current apiKey, else by the previous one (rotated within 24 h: the caller checks
 * prevApiKeyUntil). Two indexed lookups rather than an OR: the usual hit costs one.
 */
export async function getMerchantByApiKey(db: Conn, apiKey: string): Promise<MerchantRow | undefined> {
  return (
    (await get<MerchantRow>(db, `${SELECT} WHERE api_key = @apiKey`, { apiKey })) ??
    (await get<MerchantRow>(db, `${SELECT} WHERE prev_api_key = @apiKey`, { apiKey }))
  );
}

export function listMerchantRows(db: Conn): Promise<MerchantRow[]> {
  return all(db, `${SELECT} ORDER BY created_at, id COLLATE "C"`);
}

export async function insertMerchant(db: Conn, row: MerchantRow): Promise<void> {
  await run(db, insertRow(merchants), row);
}

export async function updateMerchantRow(db: Conn, id: string, patch: Partial<Omit<MerchantRow, 'id'>>): Promise<void> {
  const keys = patchKeys(merchants, patch, ['id']);
  if (keys.length === 0) return;
  await run(db, `UPDATE merchants SET ${setList(keys)} WHERE id = @id`, {
    ...patch,
    id,
  });
}

export async function moveDocumentSequence(
  db: Conn,
  merchantId: string,
  which: SequenceColumn,
  requested: number,
): Promise<number | undefined> {
  const sql = moveSequenceSql(which);
  if ((await run(db, sql.move, { id: merchantId, requested })) === 1) return undefined;
  return (await get<{ next: number }>(db, sql.current, { id: merchantId }))?.next;
}

export async function takeDocumentNumber(
  db: Conn,
  merchantId: string,
  which: SequenceColumn,
): Promise<TakenNumber | undefined> {
  return get<TakenNumber>(db, takeSequenceSql(which), { id: merchantId });
}
