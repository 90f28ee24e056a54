import type { PageWindow, TrackingRow, TrackingUpsert } from '../store.js';
import type { Db } from './db.js';

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
    `SELECT e.transaction_id AS "transactionId", t.relation_id AS "relationId", e.merchant_id AS "merchantId", e.tracking_no AS "trackingNo",
            e.tracking_channel AS "trackingChannel", e.track_url AS "trackUrl", e.created_at AS "createdAt", e.updated_at AS "updatedAt"
     FROM tracking_entries e JOIN transactions t ON t.id = e.transaction_id
     WHERE (CAST(@merchantId AS TEXT) IS NULL OR e.merchant_id = CAST(@merchantId AS TEXT))
       AND (CAST(@transactionId AS TEXT) IS NULL OR e.transaction_id = CAST(@transactionId AS TEXT))
     ORDER BY e.created_at DESC, ${db.dialect.bytewise('e.id')} DESC LIMIT @limit OFFSET @offset`,
    { merchantId: f.merchantId ?? null, transactionId: f.transactionId ?? null, limit: f.limit, offset: f.offset },
  );
}
