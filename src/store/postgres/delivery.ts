import type { ClaimedEvent, EventClaim } from '../store.js';
import { all, type Conn } from './query.js';

/**
 * The outbox claim protocol on PostgreSQL. Candidates are read and locked with FOR UPDATE SKIP
 * LOCKED (a row another deliverer is claiming right now is passed over, never waited for), the
 * per-merchant share is applied, and the chosen rows get their lease in one UPDATE that repeats
 * the conditions. Ordering rule as on SQLite: an event of a subscription is not claimed while an
 * earlier event (lower seq) of the same subscription is still PENDING.
 */

const NOT_BLOCKED = `(e.subscription_id IS NULL OR NOT EXISTS (
    SELECT 1 FROM outbox_events p
    WHERE p.subscription_id = e.subscription_id AND p.seq < e.seq AND p.status = 'PENDING'))`;

const DUE_SQL = `SELECT e.id, e.merchant_id AS "merchantId" FROM outbox_events e
  WHERE e.status = 'PENDING' AND e.next_attempt_at <= @now AND (e.lease_until IS NULL OR e.lease_until < @now)
    AND NOT (e.merchant_id = ANY(@busy::text[]))
    AND ${NOT_BLOCKED}
  ORDER BY e.next_attempt_at, e.seq LIMIT @limit
  FOR UPDATE OF e SKIP LOCKED`;

const CLAIM_SQL = `UPDATE outbox_events AS e SET lease_owner = @owner, lease_until = @leaseUntil
  WHERE e.id = ANY(@ids::text[]) AND e.status = 'PENDING' AND e.next_attempt_at <= @now AND (e.lease_until IS NULL OR e.lease_until < @now)
    AND ${NOT_BLOCKED}
  RETURNING e.id, e.merchant_id AS "merchantId", e.notify_url AS "notifyUrl", e.payload, e.attempts`;

export async function claimDueEvents(db: Conn, a: EventClaim): Promise<ClaimedEvent[]> {
  if (a.max <= 0) return [];
  const counts = new Map(a.inFlight);
  const busy = [...counts].filter(([, n]) => n >= a.perMerchant).map(([m]) => m);
  const candidates = await all<{ id: string; merchantId: string }>(db, DUE_SQL, { now: a.now, busy, limit: a.max * 4 });
  const chosen: string[] = [];
  for (const c of candidates) {
    if (chosen.length >= a.max) break;
    const n = counts.get(c.merchantId) ?? 0;
    if (n >= a.perMerchant) continue;
    counts.set(c.merchantId, n + 1);
    chosen.push(c.id);
  }
  if (chosen.length === 0) return [];
  const rows = await all<ClaimedEvent>(db, CLAIM_SQL, {
    ids: chosen,
    owner: a.owner,
    leaseUntil: a.leaseUntil,
    now: a.now,
  });
  const byId = new Map(rows.map((r) => [r.id, r]));
  return chosen.flatMap((id) => byId.get(id) ?? []);
}
