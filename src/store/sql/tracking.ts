import type { PageWindow, TrackingRow, TrackingUpsert } from '../store.js';
import { trackingEntries } from '../tables/index.js';
import { selectExcept } from '../tables/rows.js';
import type { Db } from './db.js';

const COLUMNS = selectExcept(trackingEntries, 'e', ['id']);

/** Entries accumulate per order (split shipments); the same (order, trackingNo) again updates it. */
export async function upsertTracking(db: Db, e: TrackingUpsert): Promise<void> {
  await db.run(
    `INSERT INTO tracking_entries (id, merchant_id, transaction_id, tracking_no, tracking_channel, track_url, created_at, updated_at)
     VALUES (@id, @merchantId, @transactionId, @trackingNo, @trackingChannel, @trackUrl, @now, @now)
     ON CONFLICT (transaction_id, tracking_no) DO UPDATE SET
       tracking_channel = excluded.tracking_channel, track_url = excluded.track_url, updated_at = excluded.updated_at`,
    { ...e },
  );
}

export function listTracking(
  db: Db,
  f: { merchantId?: string | undefined; transactionId?: string | undefined } & PageWindow,
): Promise<TrackingRow[]> {
  return db.all(
    `SELECT ${COLUMNS}, t.relation_id AS "relationId"
     FROM tracking_entries e JOIN transactions t ON t.id = e.transaction_id
     WHERE (CAST(@merchantId AS TEXT) IS NULL OR e.merchant_id = CAST(@merchantId AS TEXT))
       AND (CAST(@transactionId AS TEXT) IS NULL OR e.transaction_id = CAST(@transactionId AS TEXT))
     ORDER BY e.created_at DESC, ${db.dialect.bytewise('e.id')} DESC LIMIT @limit OFFSET @offset`,
    { merchantId: f.merchantId ?? null, transactionId: f.transactionId ?? null, limit: f.limit, offset: f.offset },
  );
}
