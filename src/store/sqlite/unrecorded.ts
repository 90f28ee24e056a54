import type { UnrecordedCharge } from '../store.js';
import type { Sqlite } from './client.js';
import { prepared } from './prepared.js';

/**
 * Customer-present charges started but never recorded (ACCEPTED with no channel result; the
 * process died mid-charge), whose charge lease began at or before `before`, oldest first after
 * `after` (a keyset: rows nobody can settle do not hide the rest). Reads only the partial index
 * transactions_unrecorded. Renewals are left to their own claims' leases.
 */
export function unrecordedCharges(
  sqlite: Sqlite,
  before: number,
  after: UnrecordedCharge,
  limit: number,
): UnrecordedCharge[] {
  return prepared(
    sqlite,
    `SELECT id, updated_at AS updatedAt FROM transactions
     WHERE status = 100000 AND channel_ref IS NULL AND updated_at <= ? AND (updated_at, id) > (?, ?)
       AND payment_type IN ('PAY', 'SUBSCRIPTION', 'CARD_CHECK')
     ORDER BY updated_at, id LIMIT ?`,
  ).all(before, after.updatedAt, after.id, limit) as UnrecordedCharge[];
}
