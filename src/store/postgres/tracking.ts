import type { TrackingUpsert } from '../store.js';
import { run, type Conn } from './query.js';

/** Entries accumulate per order (split shipments); the same (order, trackingNo) again updates it. */
export async function upsertTracking(db: Conn, e: TrackingUpsert): Promise<void> {
  await run(
    db,
    `INSERT INTO tracking_entries (id, merchant_id, transaction_id, tracking_no, tracking_channel, track_url, created_at, updated_at)
     VALUES (@id, @merchantId, @transactionId, @trackingNo, @trackingChannel, @trackUrl, @now, @now)
     ON CONFLICT (transaction_id, tracking_no) DO UPDATE SET
       tracking_channel = excluded.tracking_channel, track_url = excluded.track_url, updated_at = excluded.updated_at`,
    { ...e },
  );
}
