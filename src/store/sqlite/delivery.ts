import type { AttemptOutcome, ClaimedEvent, EventClaim } from '../store.js';
import type { Sqlite } from './client.js';
import { prepared, reader } from './prepared.js';

/**
 * The outbox claim protocol. Like renewals (SPEC §7), a claim is a conditional UPDATE of
 * lease_owner / lease_until checked by its change count — no process-local lock — so any number
 * of deliverers (serve instances, renew runs) on one database never send the same attempt twice.
 *
 * Ordering rule (docs/callbacks.md): an event of a subscription is not claimed while an earlier
 * event (lower seq) of the same subscription is still PENDING — whether due, leased or waiting
 * for a retry. DELIVERED and DEAD events do not block.
 */

const NOT_BLOCKED = `(e.subscription_id IS NULL OR NOT EXISTS (
    SELECT 1 FROM outbox_events p INDEXED BY outbox_subscription
    WHERE p.subscription_id = e.subscription_id AND p.seq < e.seq AND p.status = 'PENDING'))`;

const DUE_SQL = `SELECT e.id, e.merchant_id AS merchantId FROM outbox_events e INDEXED BY outbox_due
  WHERE e.status = 'PENDING' AND e.next_attempt_at <= @now AND (e.lease_until IS NULL OR e.lease_until < @now)
    AND e.merchant_id NOT IN (SELECT value FROM json_each(@busy))
    AND ${NOT_BLOCKED}
  ORDER BY e.next_attempt_at, e.seq LIMIT @limit`;

const CLAIM_SQL = `UPDATE outbox_events AS e SET lease_owner = @owner, lease_until = @leaseUntil
  WHERE e.id = @id AND e.status = 'PENDING' AND e.next_attempt_at <= @now AND (e.lease_until IS NULL OR e.lease_until < @now)
    AND ${NOT_BLOCKED}`;

/**
 * Claim up to `max` due events for `owner`, at most `perMerchant` of any one merchant counting
 * `inFlight` (deliveries this deliverer already has running). Synchronous: run it inside a write
 * transaction so candidates and claims are consistent.
 */
export function claimDueEvents(sqlite: Sqlite, a: EventClaim): ClaimedEvent[] {
  if (a.max <= 0) return [];
  const counts = new Map(a.inFlight);
  const busy = [...counts].filter(([, n]) => n >= a.perMerchant).map(([m]) => m);
  const candidates = reader(sqlite, DUE_SQL).all({ now: a.now, busy: JSON.stringify(busy), limit: a.max * 4 }) as {
    id: string;
    merchantId: string;
  }[];
  const claimed: ClaimedEvent[] = [];
  const leaseUntil = a.leaseUntil;
  for (const c of candidates) {
    if (claimed.length >= a.max) break;
    const n = counts.get(c.merchantId) ?? 0;
    if (n >= a.perMerchant) continue;
    if (prepared(sqlite, CLAIM_SQL).run({ id: c.id, owner: a.owner, leaseUntil, now: a.now }).changes !== 1) continue;
    const row = reader(
      sqlite,
      'SELECT id, merchant_id AS merchantId, notify_url AS notifyUrl, payload, attempts FROM outbox_events WHERE id = ?',
    ).get(c.id) as ClaimedEvent | undefined;
    if (!row) continue;
    counts.set(c.merchantId, n + 1);
    claimed.push(row);
  }
  return claimed;
}

/**
 * Record an attempt's outcome and release the lease; false when the lease was lost (taken over
 * after expiry), in which case the other deliverer's outcome stands.
 */
export function finishAttempt(sqlite: Sqlite, id: string, owner: string, o: AttemptOutcome): boolean {
  return (
    prepared(
      sqlite,
      `UPDATE outbox_events SET status = @status, attempts = @attempts,
         next_attempt_at = coalesce(@nextAttemptAt, next_attempt_at), last_http_status = @httpStatus, last_error = @error,
         delivered_at = CASE WHEN @status = 'DELIVERED' THEN @now ELSE delivered_at END,
         lease_owner = NULL, lease_until = NULL
       WHERE id = @id AND lease_owner = @owner AND status = 'PENDING'`,
    ).run({ id, owner, ...o }).changes === 1
  );
}

const SWEEP_SQL = `UPDATE outbox_events SET status = 'DEAD', last_error = @error, lease_owner = NULL, lease_until = NULL
  WHERE id IN (
    SELECT e.id FROM outbox_events e INDEXED BY outbox_due
    WHERE e.status = 'PENDING' AND e.next_attempt_at <= @now AND (e.lease_until IS NULL OR e.lease_until < @now)
      AND e.notify_url IS NULL
      AND e.merchant_id IN (SELECT id FROM merchants WHERE notify_url IS NULL)
    LIMIT @limit)`;

/**
 * Mark DEAD, in one statement, up to `limit` due events that have no target at all (no notifyUrl
 * of their own, none on the merchant). Such events are no longer written (outbox.ts), but they
 * remain when a merchant clears its URL with events waiting, and in databases written by earlier
 * versions; without this each would take a claim and a finish of its own. Free when every
 * merchant has a notifyUrl.
 */
export function sweepUnaddressed(sqlite: Sqlite, now: number, limit: number, error: string): number {
  // Stored notifyUrls are never '' (validation turns an empty one into NULL), so NULL is "none".
  if (!prepared(sqlite, 'SELECT 1 FROM merchants WHERE notify_url IS NULL LIMIT 1').get()) return 0;
  return prepared(sqlite, SWEEP_SQL).run({ now, limit, error }).changes;
}
