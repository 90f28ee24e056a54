import { newId } from '../../domain/ids.js';
import type { AttemptOutcome, EventFilter, EventRow, NewEvent } from '../store.js';
import { outboxEvents } from '../tables/index.js';
import { prefixed, selectExcept } from '../tables/rows.js';
import type { Db } from './db.js';

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
export async function sweepUnaddressed(db: Db, now: number, limit: number, error: string): Promise<number> {
  // Stored notifyUrls are never '' (validation turns an empty one into NULL), so NULL is "none".
  if (!(await db.get('SELECT 1 FROM merchants WHERE notify_url IS NULL LIMIT 1'))) return 0;
  return db.run(
    `UPDATE outbox_events SET status = 'DEAD', last_error = @error, lease_owner = NULL, lease_until = NULL
     WHERE id IN (
       SELECT e.id FROM outbox_events e${db.dialect.indexedBy('outbox_due')}
       WHERE e.status = 'PENDING' AND e.next_attempt_at <= @now AND (e.lease_until IS NULL OR e.lease_until < @now)
         AND e.notify_url IS NULL AND e.merchant_id IN (SELECT id FROM merchants WHERE notify_url IS NULL)
       LIMIT @limit${db.dialect.skipLocked})`,
    { now, limit, error },
  );
}
