import { z } from 'zod';
import type { Ctx } from '../ctx.js';
import { notAllowed, notFound } from '../domain/errors.js';
import { integerField, optionalString, parseInput } from '../domain/fields.js';
import { formatTime } from '../domain/time.js';
import type { EventRow, EventStatus } from '../store/store.js';

/**
 * The operator's view of the callback outbox (SPEC §8): list events with their delivery state,
 * and put a DEAD or delivered event back in the queue.
 */

export type { EventStatus } from '../store/store.js';

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
export async function listEvents(ctx: Ctx, input: ListEventsInput): Promise<EventView[]> {
  const q = parseInput(listSchema, input);
  let subscriptionId: string | undefined;
  if (q.subscriptionCode !== undefined) {
    subscriptionId = await ctx.store.findSubscriptionId(q.subscriptionCode, q.merchantId);
    if (!subscriptionId) throw notFound('subscription');
  }
  const rows = await ctx.store.listEvents({
    status: q.status,
    merchantId: q.merchantId,
    subscriptionId,
    limit: q.limit ?? 100,
  });
  return rows.map((r) => view(ctx, r));
}

export async function showEvent(ctx: Ctx, eventId: string): Promise<EventView> {
  const row = await ctx.store.getEvent(eventId);
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
  await ctx.store.transaction(async (tx) => {
    const row = await tx.getEvent(eventId);
    if (!row || (opts.merchantId !== undefined && row.merchantId !== opts.merchantId)) throw notFound('event');
    if (row.status === 'PENDING') throw notAllowed('event is already PENDING (waiting for delivery)');
    await tx.requeueEvent(eventId, now);
  });
  return showEvent(ctx, eventId);
}
