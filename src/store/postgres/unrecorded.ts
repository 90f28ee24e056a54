import type { UnrecordedCharge } from '../store.js';
import { all, type Conn } from './query.js';

/** See the SQLite engine: charges started but never recorded, through the partial index transactions_unrecorded. */
export function unrecordedCharges(
  db: Conn,
  before: number,
  after: UnrecordedCharge,
  limit: number,
): Promise<UnrecordedCharge[]> {
  return all<UnrecordedCharge>(
    db,
    `SELECT id, updated_at AS "updatedAt" FROM transactions
     WHERE status = 100000 AND channel_ref IS NULL AND updated_at <= @before
       AND (updated_at, id) > (@afterAt, @afterId)
       AND payment_type IN ('PAY', 'SUBSCRIPTION', 'CARD_CHECK')
     ORDER BY updated_at, id LIMIT @limit`,
    { before, afterAt: after.updatedAt, afterId: after.id, limit },
  );
}
