import { eq } from 'drizzle-orm';
import type { Ctx } from '../../app.js';
import { notAllowed } from '../../domain/errors.js';
import { nextState } from '../../domain/subscription-state.js';
import { paymentCallbackBody } from '../../notify/payloads.js';
import { enqueueEvent } from '../../store/outbox.js';
import { prepared } from '../../store/prepared.js';
import { transactions } from '../../store/schema/index.js';
import { cancelUnclaimedRecords, getSubscription, type SubscriptionRow } from '../../store/subscriptions.js';
import { endSubscription } from './end.js';
import { requireSubscription, subscriptionIdOf } from './queries.js';

/** The transaction status a cancelled subscription's open first charge ends with (SPEC §5: 300020 CANCELLED). */
export const CANCELLED_TXN_STATUS = 300020;

/**
 * POST /subscription/cancel: ACTIVE, PAUSED or INCOMPLETE → CANCELLED. The PENDING record is
 * CANCELLED; cancelTime = now; endTime = the end of the paid period (or trial) if still running,
 * else now; the plan count drops and the card is deleted. For an INCOMPLETE subscription the
 * first charge's 3DS page stops working: its transaction becomes final (300020) with the page
 * token cleared, and its payment callback is written. `input`: raw request object or the id.
 */
export function cancelSubscription(ctx: Ctx, merchantId: string, input: unknown): true {
  const id = subscriptionIdOf(input);
  requireSubscription(ctx, merchantId, id);
  ctx.sqlite
    .transaction(() => {
      const s = getSubscription(ctx.sqlite, merchantId, id);
      if (!s) throw notAllowed('subscription disappeared');
      const to = nextState(s.status, 'CANCEL');
      if (to !== 'CANCELLED') throw notAllowed(`cannot cancel a ${s.status} subscription`);
      const now = ctx.clock.now();
      const cancelled = cancelUnclaimedRecords(ctx.sqlite, s.id);
      for (const r of cancelled) {
        if (r.billingType === 'INITIAL' && r.transactionId) closeOpenPage(ctx, r.transactionId, s, now);
      }
      endSubscription(ctx, s, 'CANCELLED', { now, endTime: periodEnd(s, now), cancelTime: now });
    })
    .immediate();
  return true;
}

/** The end of the paid period (or trial) if it is still running at `now`, else `now`. */
export function periodEnd(s: SubscriptionRow, now: number): number {
  if (s.status === 'INCOMPLETE') return now;
  const paid = s.paidThrough ?? (s.anchorTime > s.startTime ? s.anchorTime : null);
  return paid !== null && paid > now ? paid : now;
}

function closeOpenPage(ctx: Ctx, transactionId: string, s: SubscriptionRow, now: number): void {
  const r = prepared(
    ctx.sqlite,
    `UPDATE transactions SET status = ?, page_token = NULL, page_expires_at = NULL, txn_time = ?, updated_at = ?
     WHERE id = ? AND status IN (100000, 100040, 100050)`,
  ).run(CANCELLED_TXN_STATUS, now, now, transactionId);
  if (r.changes !== 1) return;
  const txn = ctx.db.select().from(transactions).where(eq(transactions.id, transactionId)).get();
  if (!txn) return;
  enqueueEvent(ctx.sqlite, {
    merchantId: txn.merchantId,
    kind: 'PAYMENT',
    eventType: 'PAYMENT',
    transactionId: txn.id,
    subscriptionId: s.id,
    notifyUrl: txn.notifyUrl,
    body: paymentCallbackBody(txn, ctx.zone, { id: s.id, code: s.code }),
    now,
  });
}
