import { newId } from '../../domain/ids.js';
import type { EventFilter, EventRow, NewEvent } from '../store.js';
import { outboxEvents } from '../tables/index.js';
import { selectList } from '../tables/rows.js';
import type { Sqlite } from './client.js';
import { prepared } from './prepared.js';

const statements = new WeakMap<Sqlite, ReturnType<Sqlite['prepare']>>();

/**
 * Write a callback event. MUST be called inside the same database transaction as the change it
 * reports (ARCHITECTURE: side effects are written with the change). Returns the eventId.
 */
/**
 * Write a callback event, in the unit of work of the change it reports. Not written (undefined)
 * when it has nowhere to go: no notifyUrl of its own and none on the merchant (one statement, no
 * separate read of the merchant).
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

export function listEvents(sqlite: Sqlite, f: EventFilter): EventRow[] {
  return prepared(
    sqlite,
    `SELECT ${COLUMNS} FROM outbox_events
     WHERE (@status IS NULL OR status = @status) AND (@merchantId IS NULL OR merchant_id = @merchantId)
       AND (@subscriptionId IS NULL OR subscription_id = @subscriptionId)
     ORDER BY seq DESC LIMIT @limit`,
  ).all({
    status: f.status ?? null,
    merchantId: f.merchantId ?? null,
    subscriptionId: f.subscriptionId ?? null,
    limit: f.limit,
  }) as EventRow[];
}

export function getEvent(sqlite: Sqlite, id: string): EventRow | undefined {
  return prepared(sqlite, `SELECT ${COLUMNS} FROM outbox_events WHERE id = ?`).get(id) as EventRow | undefined;
}

export function requeueEvent(sqlite: Sqlite, id: string, now: number): boolean {
  return (
    prepared(
      sqlite,
      `UPDATE outbox_events SET status = 'PENDING', attempts = 0, next_attempt_at = ?, last_http_status = NULL, last_error = NULL,
         delivered_at = NULL, lease_owner = NULL, lease_until = NULL
       WHERE id = ? AND status IN ('DEAD', 'DELIVERED')`,
    ).run(now, id).changes === 1
  );
}
