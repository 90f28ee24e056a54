import { newId } from '../../domain/ids.js';
import type { EventFilter, EventRow, NewEvent } from '../store.js';
import { outboxEvents } from '../tables/index.js';
import { selectList } from '../tables/rows.js';
import { all, get, run, type Conn } from './query.js';

/**
 * Write a callback event, in the unit of work of the change it reports. Not written (undefined)
 * when it has nowhere to go: no notifyUrl of its own and none on the merchant.
 */
export async function enqueueEvent(db: Conn, e: NewEvent): Promise<string | undefined> {
  const id = newId('evt', e.now);
  // eventId goes right after notifyType so bodies read in the documented order.
  const { notifyType, ...rest } = e.body;
  const payload = JSON.stringify({ notifyType, eventId: id, ...rest });
  const written = await run(
    db,
    `INSERT INTO outbox_events (id, merchant_id, kind, event_type, transaction_id, subscription_id, notify_url, payload,
       status, attempts, next_attempt_at, created_at)
     SELECT @id, @merchantId::text, @kind, @eventType, @transactionId, @subscriptionId, @notifyUrl::text, @payload, 'PENDING', 0, @now, @now
     WHERE @notifyUrl::text IS NOT NULL OR EXISTS (SELECT 1 FROM merchants WHERE id = @merchantId::text AND notify_url IS NOT NULL)`,
    {
      id,
      merchantId: e.merchantId,
      kind: e.kind,
      eventType: e.eventType,
      transactionId: e.transactionId ?? null,
      subscriptionId: e.subscriptionId ?? null,
      notifyUrl: e.notifyUrl ?? null,
      payload,
      now: e.now,
    },
  );
  return written === 1 ? id : undefined;
}

/** The columns of an EventRow. */
const COLUMNS = selectList(outboxEvents, undefined, [
  'id',
  'merchantId',
  'kind',
  'eventType',
  'status',
  'attempts',
  'lastHttpStatus',
  'lastError',
  'nextAttemptAt',
  'deliveredAt',
  'createdAt',
  'transactionId',
  'subscriptionId',
  'notifyUrl',
]);

export function listEvents(db: Conn, f: EventFilter): Promise<EventRow[]> {
  return all(
    db,
    `SELECT ${COLUMNS} FROM outbox_events
     WHERE (@status::text IS NULL OR status = @status::text) AND (@merchantId::text IS NULL OR merchant_id = @merchantId::text)
       AND (@subscriptionId::text IS NULL OR subscription_id = @subscriptionId::text)
     ORDER BY seq DESC LIMIT @limit`,
    {
      status: f.status ?? null,
      merchantId: f.merchantId ?? null,
      subscriptionId: f.subscriptionId ?? null,
      limit: f.limit,
    },
  );
}

export function getEvent(db: Conn, id: string): Promise<EventRow | undefined> {
  return get(db, `SELECT ${COLUMNS} FROM outbox_events WHERE id = @id`, { id });
}

export async function requeueEvent(db: Conn, id: string, now: number): Promise<boolean> {
  return (
    (await run(
      db,
      `UPDATE outbox_events SET status = 'PENDING', attempts = 0, next_attempt_at = @now, last_http_status = NULL, last_error = NULL,
         delivered_at = NULL, lease_owner = NULL, lease_until = NULL
       WHERE id = @id AND status IN ('DEAD', 'DELIVERED')`,
      { id, now },
    )) === 1
  );
}
