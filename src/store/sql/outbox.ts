import { newId } from '../../domain/ids.js';
import type { AttemptOutcome, ClaimedEvent, EventClaim, EventFilter, EventRow, NewEvent } from '../store.js';
import { outboxEvents } from '../tables/index.js';
import { prefixed, selectExcept } from '../tables/rows.js';
import { type Db, perDialect } from './db.js';

/**
 * Write a callback event, in the unit of work of the change it reports (ARCHITECTURE: side
 * effects are written with the change). Not written (undefined) when it has nowhere to go: no
 * notifyUrl of its own and none on the merchant — one statement, no separate read of the merchant.
 */
export async function enqueueEvent(db: Db, e: NewEvent): Promise<string | undefined> {
  const { id, args } = eventArgs(e);
  return (await insertEvent(db, args)) ? id : undefined;
}

/** An event's INSERT from eventArgs(e)'s parameters; false when it has nowhere to go. */
export async function insertEvent(db: Db, args: Record<string, unknown>): Promise<boolean> {
  return (await db.run(INSERT_EVENT, args)) === 1;
}

export const EVENT_COLUMNS =
  'id, merchant_id, kind, event_type, transaction_id, subscription_id, notify_url, payload, status, attempts, next_attempt_at, created_at';

/**
 * The SELECT that gives an event's row (EVENT_COLUMNS) from `@<prefix>…` parameters (eventArgs),
 * or none when it has nowhere to go; `from` names a relation whose rows gate it (a CTE's), and
 * `payload` may be an expression over it (a number the chain took).
 */
export function eventSelect(p: string, from?: string, payload = `@${p}payload`): string {
  return `SELECT @${p}id, CAST(@${p}merchantId AS TEXT), @${p}kind, @${p}eventType, @${p}transactionId, @${p}subscriptionId,
       CAST(@${p}notifyUrl AS TEXT), ${payload}, 'PENDING', 0, @${p}now, @${p}now${from ? ` FROM ${from}` : ''}
     WHERE CAST(@${p}notifyUrl AS TEXT) IS NOT NULL
       OR EXISTS (SELECT 1 FROM merchants WHERE id = CAST(@${p}merchantId AS TEXT) AND notify_url IS NOT NULL)`;
}

const INSERT_EVENT = `INSERT INTO outbox_events (${EVENT_COLUMNS}) ${eventSelect('')}`;

/** An event's id and its parameters for eventSelect (under `prefix`). */
export function eventArgs(e: NewEvent, prefix = ''): { id: string; args: Record<string, unknown> } {
  const id = newId('evt', e.now);
  // eventId goes right after notifyType so bodies read in the documented order.
  const { notifyType, ...rest } = e.body;
  const payload = JSON.stringify({ notifyType, eventId: id, ...rest });
  const args = {
    id,
    merchantId: e.merchantId,
    kind: e.kind,
    eventType: e.eventType,
    transactionId: e.transactionId ?? null,
    subscriptionId: e.subscriptionId ?? null,
    notifyUrl: e.notifyUrl ?? null,
    payload,
    now: e.now,
  };
  return { id, args: prefixed(prefix, args) };
}

/** The columns of an EventRow: all but these (store.ts's EventRow omits the same). */
const COLUMNS = selectExcept(outboxEvents, undefined, ['seq', 'payload', 'leaseOwner', 'leaseUntil']);

export function listEvents(db: Db, f: EventFilter): Promise<EventRow[]> {
  return db.all(
    `SELECT ${COLUMNS} FROM outbox_events
     WHERE (CAST(@status AS TEXT) IS NULL OR status = CAST(@status AS TEXT))
       AND (CAST(@merchantId AS TEXT) IS NULL OR merchant_id = CAST(@merchantId AS TEXT))
       AND (CAST(@subscriptionId AS TEXT) IS NULL OR subscription_id = CAST(@subscriptionId AS TEXT))
     ORDER BY seq DESC LIMIT @limit`,
    {
      status: f.status ?? null,
      merchantId: f.merchantId ?? null,
      subscriptionId: f.subscriptionId ?? null,
      limit: f.limit,
    },
  );
}

export function getEvent(db: Db, id: string): Promise<EventRow | undefined> {
  return db.get(`SELECT ${COLUMNS} FROM outbox_events WHERE id = @id`, { id });
}

export async function requeueEvent(db: Db, id: string, now: number): Promise<boolean> {
  return (
    (await db.run(
      `UPDATE outbox_events SET status = 'PENDING', attempts = 0, next_attempt_at = @now, last_http_status = NULL, last_error = NULL,
         delivered_at = NULL, lease_owner = NULL, lease_until = NULL
       WHERE id = @id AND status IN ('DEAD', 'DELIVERED')`,
      { id, now },
    )) === 1
  );
}

/**
 * The outbox claim protocol. Like renewals (SPEC §7), a claim is a conditional UPDATE of
 * lease_owner / lease_until that repeats the candidates' conditions — no process-local lock — so
 * any number of deliverers (serve instances, renew runs) on one database never send the same
 * attempt twice. Due is judged on the claimer's business clock (`now`: renew --at delivers what it
 * caused); the lease on real time (`leaseNow`), the one clock all deliverers share, so a test
 * clock ahead neither takes an attempt under way nor leaves a lease that outlives its deliverer. Candidates are read passing over rows another deliverer is claiming right now
 * (PostgreSQL's SKIP LOCKED; SQLite's writer runs alone).
 *
 * Ordering rule (docs/callbacks.md): an event of a subscription is not claimed while an earlier
 * event (lower seq) of the same subscription is still PENDING — whether due, leased or waiting
 * for a retry. DELIVERED and DEAD events do not block.
 */
const CLAIM = perDialect((d) => {
  const due = `e.status = 'PENDING' AND e.next_attempt_at <= @now AND (e.lease_until IS NULL OR e.lease_until < @leaseNow)
    AND (e.subscription_id IS NULL OR NOT EXISTS (
      SELECT 1 FROM outbox_events p${d.indexedBy('outbox_subscription')}
      WHERE p.subscription_id = e.subscription_id AND p.seq < e.seq AND p.status = 'PENDING'))`;
  return {
    candidates: `SELECT e.id, e.merchant_id AS "merchantId" FROM outbox_events e${d.indexedBy('outbox_due')}
      WHERE ${due} AND NOT (${d.inList('e.merchant_id', '@busy')})
      ORDER BY e.next_attempt_at, e.seq LIMIT @limit${d.skipLocked}`,
    // RETURNING names no alias: SQLite's refers to the updated table's columns only.
    claim: `UPDATE outbox_events AS e SET lease_owner = @owner, lease_until = @leaseUntil
      WHERE ${d.inList('e.id', '@ids')} AND ${due}
      RETURNING id, merchant_id AS "merchantId", notify_url AS "notifyUrl", payload, attempts`,
  };
});

/**
 * Claim up to `max` due events for `owner`, at most `perMerchant` of any one merchant counting
 * `inFlight` (deliveries this deliverer already has running), in the order they are due.
 */
export async function claimDueEvents(db: Db, a: EventClaim): Promise<ClaimedEvent[]> {
  if (a.max <= 0) return [];
  const sql = CLAIM(db.dialect);
  const counts = new Map(a.inFlight);
  const busy = [...counts].filter(([, n]) => n >= a.perMerchant).map(([m]) => m);
  const candidates = await db.all<{ id: string; merchantId: string }>(sql.candidates, {
    now: a.now,
    leaseNow: a.leaseNow,
    busy,
    limit: a.max * 4,
  });
  const chosen: string[] = [];
  for (const c of candidates) {
    if (chosen.length >= a.max) break;
    const n = counts.get(c.merchantId) ?? 0;
    if (n >= a.perMerchant) continue;
    counts.set(c.merchantId, n + 1);
    chosen.push(c.id);
  }
  if (chosen.length === 0) return [];
  const rows = await db.all<ClaimedEvent>(sql.claim, {
    ids: chosen,
    owner: a.owner,
    leaseUntil: a.leaseUntil,
    now: a.now,
    leaseNow: a.leaseNow,
  });
  const byId = new Map(rows.map((r) => [r.id, r]));
  return chosen.flatMap((id) => byId.get(id) ?? []);
}

/**
 * Record an attempt's outcome and release the lease; false when the lease was lost (taken over
 * after expiry), in which case the other deliverer's outcome stands.
 */
export async function finishAttempt(db: Db, id: string, owner: string, o: AttemptOutcome): Promise<boolean> {
  return (
    (await db.run(
      `UPDATE outbox_events SET status = CAST(@status AS TEXT), attempts = @attempts,
         next_attempt_at = coalesce(CAST(@nextAttemptAt AS BIGINT), next_attempt_at), last_http_status = @httpStatus,
         last_error = @error, delivered_at = CASE WHEN CAST(@status AS TEXT) = 'DELIVERED' THEN CAST(@now AS BIGINT) ELSE delivered_at END,
         lease_owner = NULL, lease_until = NULL
       WHERE id = @id AND lease_owner = @owner AND status = 'PENDING'`,
      { id, owner, ...o },
    )) === 1
  );
}

/**
 * Mark DEAD, in one statement, up to `limit` due events that have no target at all (no notifyUrl
 * of their own, none on the merchant). Such events are no longer written (enqueueEvent), but they
 * remain when a merchant clears its URL with events waiting, and in databases written by earlier
 * versions; without this each would take a claim and a finish of its own. Free when every
 * merchant has a notifyUrl. Events another deliverer holds are passed over (the merchants are read
 * by a subquery, so only the events are locked).
 */
export async function sweepUnaddressed(
  db: Db,
  now: number,
  leaseNow: number,
  limit: number,
  error: string,
): Promise<number> {
  // Stored notifyUrls are never '' (validation turns an empty one into NULL), so NULL is "none".
  if (!(await db.get('SELECT 1 FROM merchants WHERE notify_url IS NULL LIMIT 1'))) return 0;
  return db.run(
    `UPDATE outbox_events SET status = 'DEAD', last_error = @error, lease_owner = NULL, lease_until = NULL
     WHERE id IN (
       SELECT e.id FROM outbox_events e${db.dialect.indexedBy('outbox_due')}
       WHERE e.status = 'PENDING' AND e.next_attempt_at <= @now AND (e.lease_until IS NULL OR e.lease_until < @leaseNow)
         AND e.notify_url IS NULL AND e.merchant_id IN (SELECT id FROM merchants WHERE notify_url IS NULL)
       LIMIT @limit${db.dialect.skipLocked})`,
    { now, leaseNow, limit, error },
  );
}
