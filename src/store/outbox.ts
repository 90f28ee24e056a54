import type { Sqlite } from './client.js';
import { newId } from '../domain/ids.js';

export interface NewEvent {
  merchantId: string;
  kind: 'PAYMENT' | 'SUBSCRIPTION';
  /** PAYMENT for payment callbacks; RENEW_SUCCEEDED, RENEW_FAILED, SUBSCRIPTION_FAILED, SUBSCRIPTION_EXPIRED for subscription ones. */
  eventType: string;
  transactionId?: string | null;
  subscriptionId?: string | null;
  /** The transaction's / subscription's own notifyUrl; null means the merchant's default at delivery time. */
  notifyUrl?: string | null;
  /** The callback body without eventId (added here); build it with notify/payloads.ts. */
  body: Record<string, string>;
  now: number;
}

const statements = new WeakMap<Sqlite, ReturnType<Sqlite['prepare']>>();

/**
 * Write a callback event. MUST be called inside the same database transaction as the change it
 * reports (ARCHITECTURE: side effects are written with the change). Returns the eventId, or
 * undefined when the event was not written because it has nowhere to go: no notifyUrl of its
 * own and none on the merchant (SPEC §8; one statement, no separate read of the merchant).
 */
export function enqueueEvent(sqlite: Sqlite, e: NewEvent): string | undefined {
  let stmt = statements.get(sqlite);
  if (!stmt) {
    stmt = sqlite.prepare(
      `INSERT INTO outbox_events (id, merchant_id, kind, event_type, transaction_id, subscription_id, notify_url, payload,
         status, attempts, next_attempt_at, created_at)
       SELECT @id, @merchantId, @kind, @eventType, @transactionId, @subscriptionId, @notifyUrl, @payload, 'PENDING', 0, @now, @now
       WHERE @notifyUrl IS NOT NULL OR EXISTS (SELECT 1 FROM merchants WHERE id = @merchantId AND notify_url IS NOT NULL)`,
    );
    statements.set(sqlite, stmt);
  }
  const id = newId('evt', e.now);
  // eventId goes right after notifyType so bodies read in the documented order.
  const { notifyType, ...rest } = e.body;
  const payload = JSON.stringify({ notifyType, eventId: id, ...rest });
  const written = stmt.run({
    id,
    merchantId: e.merchantId,
    kind: e.kind,
    eventType: e.eventType,
    transactionId: e.transactionId ?? null,
    subscriptionId: e.subscriptionId ?? null,
    notifyUrl: e.notifyUrl ?? null,
    payload,
    now: e.now,
  }).changes;
  return written === 1 ? id : undefined;
}
