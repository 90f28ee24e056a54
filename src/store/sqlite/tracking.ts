import type { TrackingUpsert } from '../store.js';
import type { Sqlite } from './client.js';
import { prepared } from './prepared.js';

/** Entries accumulate per order (split shipments); the same (order, trackingNo) again updates it. */
export function upsertTracking(sqlite: Sqlite, e: TrackingUpsert): void {
  prepared(
    sqlite,
    `INSERT INTO tracking_entries (id, merchant_id, transaction_id, tracking_no, tracking_channel, track_url, created_at, updated_at)
     VALUES (@id, @merchantId, @transactionId, @trackingNo, @trackingChannel, @trackUrl, @now, @now)
     ON CONFLICT (transaction_id, tracking_no) DO UPDATE SET
       tracking_channel = excluded.tracking_channel, track_url = excluded.track_url, updated_at = excluded.updated_at`,
  ).run(e);
}
