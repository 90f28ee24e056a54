import type { Sqlite } from './client.js';
import { prepared } from './prepared.js';

export interface TrackingUpsert {
  id: string;
  merchantId: string;
  transactionId: string;
  trackingNo: string;
  trackingChannel: string;
  trackUrl: string | null;
  now: number;
}

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

export interface TrackingRow {
  trackingNo: string;
  trackingChannel: string;
  trackUrl: string | null;
  updatedAt: number;
}

export function trackingOf(sqlite: Sqlite, transactionId: string): TrackingRow[] {
  return prepared(
    sqlite,
    `SELECT tracking_no AS trackingNo, tracking_channel AS trackingChannel, track_url AS trackUrl, updated_at AS updatedAt
     FROM tracking_entries WHERE transaction_id = ? ORDER BY created_at, tracking_no`,
  ).all(transactionId) as TrackingRow[];
}
