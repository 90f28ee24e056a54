import type { ClaimedEvent, EventClaim } from '../store.js';
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
