import { z } from 'zod';
import type { Ctx } from '../app.js';
import { notAllowed, notFound } from '../domain/errors.js';
import { integerField, optionalString, parseInput } from '../domain/fields.js';
import { formatTime } from '../domain/time.js';
import { prepared } from '../store/prepared.js';

/**
 * The operator's view of the callback outbox (SPEC §8): list events with their delivery state,
 * and put a DEAD or delivered event back in the queue.
 */

export type EventStatus = 'PENDING' | 'DELIVERED' | 'DEAD';

export interface EventView {
  eventId: string;
  merchantId: string;
  notifyType: string;
  eventType: string;
  status: EventStatus;
  attempts: number;
  lastHttpStatus?: number;
  lastError?: string;
  /** PENDING only: when the next attempt is due. */
  nextAttemptTime?: string;
  deliveredTime?: string;
  createTime: string;
  transactionId?: string;
  subscriptionId?: string;
  notifyUrl?: string;
}

interface EventRow {
  id: string;
  merchantId: string;
  kind: string;
  eventType: string;
  status: EventStatus;
  attempts: number;
  lastHttpStatus: number | null;
  lastError: string | null;
  nextAttemptAt: number;
  deliveredAt: number | null;
  createdAt: number;
  transactionId: string | null;
  subscriptionId: string | null;
  notifyUrl: string | null;
}

const COLUMNS = `id, merchant_id AS merchantId, kind, event_type AS eventType, status, attempts,
  last_http_status AS lastHttpStatus, last_error AS lastError, next_attempt_at AS nextAttemptAt,
  delivered_at AS deliveredAt, created_at AS createdAt, transaction_id AS transactionId,
  subscription_id AS subscriptionId, notify_url AS notifyUrl`;

function view(ctx: Ctx, r: EventRow): EventView {
  const v: EventView = {
    eventId: r.id,
    merchantId: r.merchantId,
    notifyType: r.kind,
    eventType: r.eventType,
    status: r.status,
    attempts: r.attempts,
    createTime: formatTime(r.createdAt, ctx.zone),
  };
  if (r.lastHttpStatus !== null) v.lastHttpStatus = r.lastHttpStatus;
  if (r.lastError !== null) v.lastError = r.lastError;
  if (r.status === 'PENDING') v.nextAttemptTime = formatTime(r.nextAttemptAt, ctx.zone);
  if (r.deliveredAt !== null) v.deliveredTime = formatTime(r.deliveredAt, ctx.zone);
  if (r.transactionId !== null) v.transactionId = r.transactionId;
  if (r.subscriptionId !== null) v.subscriptionId = r.subscriptionId;
  if (r.notifyUrl !== null) v.notifyUrl = r.notifyUrl;
  return v;
}

const listSchema = z.object({
  status: z.enum(['PENDING', 'DELIVERED', 'DEAD'], { error: 'must be PENDING, DELIVERED or DEAD' }).optional(),
  subscriptionCode: optionalString(64),
  merchantId: optionalString(64),
  limit: integerField(1, 1000).optional(),
});

export interface ListEventsInput {
  status?: EventStatus | undefined;
  /** A subscription's code (or its id). */
  subscriptionCode?: string | undefined;
  merchantId?: string | undefined;
  /** Newest first, at most this many (default 100, at most 1000). */
  limit?: number | string | undefined;
}

/** Events newest first. An unknown subscription (or one of another merchant when merchantId is given) is 1007. */
export function listEvents(ctx: Ctx, input: ListEventsInput): EventView[] {
  const q = parseInput(listSchema, input);
  let subscriptionId: string | null = null;
  if (q.subscriptionCode !== undefined) {
    const sub = prepared(
      ctx.sqlite,
      'SELECT id FROM subscriptions WHERE (code = @ref OR id = @ref) AND (@merchantId IS NULL OR merchant_id = @merchantId) LIMIT 1',
    ).get({ ref: q.subscriptionCode, merchantId: q.merchantId ?? null }) as { id: string } | undefined;
    if (!sub) throw notFound('subscription');
    subscriptionId = sub.id;
  }
  const rows = prepared(
    ctx.sqlite,
    `SELECT ${COLUMNS} FROM outbox_events
     WHERE (@status IS NULL OR status = @status) AND (@merchantId IS NULL OR merchant_id = @merchantId)
       AND (@subscriptionId IS NULL OR subscription_id = @subscriptionId)
     ORDER BY seq DESC LIMIT @limit`,
  ).all({ status: q.status ?? null, merchantId: q.merchantId ?? null, subscriptionId, limit: q.limit ?? 100 }) as EventRow[];
  return rows.map((r) => view(ctx, r));
}

export function showEvent(ctx: Ctx, eventId: string): EventView {
  const row = prepared(ctx.sqlite, `SELECT ${COLUMNS} FROM outbox_events WHERE id = ?`).get(eventId) as EventRow | undefined;
  if (!row) throw notFound('event');
  return view(ctx, row);
}

/**
 * Put a DEAD or DELIVERED event back in the queue: PENDING, due now, attempts and last result
 * cleared. 1007 for an unknown event (or another merchant's when merchantId is given), 1008 when
 * it is already PENDING. Its subscription's later PENDING events wait for it again (ordering rule).
 */
export async function resendEvent(ctx: Ctx, eventId: string, opts: { merchantId?: string } = {}): Promise<EventView> {
  const now = ctx.clock.now();
  await ctx.writer.transaction(() => {
    const row = prepared(ctx.sqlite, 'SELECT merchant_id AS merchantId, status FROM outbox_events WHERE id = ?').get(eventId) as
      | { merchantId: string; status: EventStatus }
      | undefined;
    if (!row || (opts.merchantId !== undefined && row.merchantId !== opts.merchantId)) throw notFound('event');
    if (row.status === 'PENDING') throw notAllowed('event is already PENDING (waiting for delivery)');
    prepared(
      ctx.sqlite,
      `UPDATE outbox_events SET status = 'PENDING', attempts = 0, next_attempt_at = ?, last_http_status = NULL, last_error = NULL,
         delivered_at = NULL, lease_owner = NULL, lease_until = NULL
       WHERE id = ? AND status IN ('DEAD', 'DELIVERED')`,
    ).run(now, eventId);
  });
  return showEvent(ctx, eventId);
}
