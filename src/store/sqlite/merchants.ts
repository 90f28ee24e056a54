import type { MerchantRow } from '../store.js';
import type { Sqlite } from './client.js';
import { prepared } from './prepared.js';
import { merchants } from '../tables/index.js';
import { insertRow, patchKeys, selectFrom, setList } from '../tables/rows.js';
import { moveSequenceSql, type SequenceColumn, takeSequenceSql, type TakenNumber } from '../sequence-sql.js';

const SELECT = selectFrom(merchants);

/** Every API request looks its merchant up: prepared statements, cached per connection. */
export function getMerchant(sqlite: Sqlite, id: string): MerchantRow | undefined {
  return prepared(sqlite, `${SELECT} WHERE id = ?`).get(id) as MerchantRow | undefined;
}

/**
 * By the current apiKey, else by the previous one (rotated within 24 h: the caller checks
 * prevApiKeyUntil). Two indexed lookups rather than an OR: the usual hit costs one.
 */
export function getMerchantByApiKey(sqlite: Sqlite, apiKey: string): MerchantRow | undefined {
  return (
    (prepared(sqlite, `${SELECT} WHERE api_key = ?`).get(apiKey) as MerchantRow | undefined) ??
    (prepared(sqlite, `${SELECT} WHERE prev_api_key = ?`).get(apiKey) as MerchantRow | undefined)
  );
}

export function listMerchantRows(sqlite: Sqlite): MerchantRow[] {
  return prepared(sqlite, `${SELECT} ORDER BY created_at, id`).all() as MerchantRow[];
}

export function insertMerchant(sqlite: Sqlite, row: MerchantRow): void {
  prepared(sqlite, insertRow(merchants)).run(row);
}

export function updateMerchantRow(sqlite: Sqlite, id: string, patch: Partial<Omit<MerchantRow, 'id'>>): void {
  const keys = patchKeys(merchants, patch, ['id']);
  if (keys.length === 0) return;
  prepared(sqlite, `UPDATE merchants SET ${setList(keys)} WHERE id = @id`).run({
    ...patch,
    id,
  });
}

export function moveDocumentSequence(
  sqlite: Sqlite,
  merchantId: string,
  which: SequenceColumn,
  requested: number,
): number | undefined {
  const sql = moveSequenceSql(which);
  if (prepared(sqlite, sql.move).run({ id: merchantId, requested }).changes === 1) return undefined;
  return (prepared(sqlite, sql.current).get({ id: merchantId }) as { next: number } | undefined)?.next;
}

export function takeDocumentNumber(sqlite: Sqlite, merchantId: string, which: SequenceColumn): TakenNumber | undefined {
  return prepared(sqlite, takeSequenceSql(which)).get({ id: merchantId }) as TakenNumber | undefined;
}
