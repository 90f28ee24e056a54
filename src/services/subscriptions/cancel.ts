import type { Ctx } from '../../ctx.js';
import { notAllowed } from '../../domain/errors.js';
import { nextState } from '../../domain/subscription-state.js';
import { paymentCallbackBody } from '../../notify/payloads.js';
import type { SubscriptionRow, Tx } from '../../store/store.js';
import { queueSubscriptionEnded } from '../customer-email.js';
import { endSubscription } from './end.js';
import { requireSubscription, subscriptionIdOf } from './queries.js';
import { releaseChallengeForCancel } from '../pages.js';
import { withArticle } from '../../domain/words.js';

/** The transaction status a cancelled subscription's open first charge ends with (SPEC §5: 300020 CANCELLED). */
export const CANCELLED_TXN_STATUS = 300020;

/**
 * POST /subscription/cancel: ACTIVE, PAUSED or INCOMPLETE → CANCELLED. The PENDING record is
 * CANCELLED; cancelTime = now; endTime = the end of the paid period (or trial) if still running,
 * else now (a renewal charge under way at the cancel stays PENDING and completes: if it succeeds,
 * endTime moves to the end of the period it paid for); the plan count drops and the card is deleted. For an INCOMPLETE subscription the
 * first charge's 3DS page stops working: its transaction becomes final (300020) with the page
 * token cleared, and its payment callback is written. `input`: raw request object or the id.
 */
export async function cancelSubscription(ctx: Ctx, merchantId: string, input: unknown): Promise<true> {
  const id = subscriptionIdOf(input);
  const before = await requireSubscription(ctx, merchantId, id);
  // A first charge waiting on a challenge Stripe runs is settled with Stripe before its page is
  // closed (outside the unit of work: it asks the network); one Stripe cannot close stays open.
  const closable =
    before.status !== 'INCOMPLETE' ||
    before.initialTransactionId === null ||
    (await releaseChallengeForCancel(ctx, before.initialTransactionId));
  await ctx.store.transaction(async (tx) => {
    const s = await tx.lockSubscription(merchantId, id);
    if (!s) throw notAllowed('subscription disappeared');
    const to = nextState(s.status, 'CANCEL');
    if (to !== 'CANCELLED') throw notAllowed(`cannot cancel ${withArticle(s.status)} subscription`);
    const now = ctx.clock.now();
    const cancelled = await tx.cancelUnclaimedRecords(s.id);
    // What is still PENDING now is a renewal charge under way (SPEC §6: it completes).
    const chargeUnderWay = (await tx.pendingRecords(s.id)).length > 0;
    let firstChargeClosed = false;
    for (const r of cancelled) {
      if (r.billingType === 'INITIAL' && r.transactionId && closable)
        firstChargeClosed = (await closeOpenPage(ctx, tx, r.transactionId, s, now)) || firstChargeClosed;
    }
    const endTime = periodEnd(s, now);
    await endSubscription(tx, s, 'CANCELLED', { now, endTime, cancelTime: now });
    // A subscription that never started gives its coupon redemption back, as one whose first charge
    // failed or expired does; not while that charge is still under way (it completes, discounted).
    if (s.status === 'INCOMPLETE' && firstChargeClosed && s.couponId !== null)
      await tx.releaseCouponRedemption(s.couponId);
    // An INCOMPLETE subscription never started: its subscriber is told nothing ended.
    // With a charge under way it must not promise "no more charges": that charge may go through,
    // and then moves endTime to the end of the period it pays for (services/renew/record.ts).
    if (s.status !== 'INCOMPLETE')
      await queueSubscriptionEnded(
        ctx,
        tx,
        s,
        { status: 'CANCELLED', endTime, ...(chargeUnderWay ? { chargeUnderWay } : {}) },
        now,
      );
  });
  return true;
}

/** The end of the paid period (or trial) if it is still running at `now`, else `now`. */
export function periodEnd(s: SubscriptionRow, now: number): number {
  if (s.status === 'INCOMPLETE') return now;
  const paid = s.paidThrough ?? (s.anchorTime > s.startTime ? s.anchorTime : null);
  return paid !== null && paid > now ? paid : now;
}

/** Close the first charge's open page (CANCELLED, with its callback); whether it was open to close. */
async function closeOpenPage(
  ctx: Ctx,
  tx: Tx,
  transactionId: string,
  s: SubscriptionRow,
  now: number,
): Promise<boolean> {
  if (!(await tx.closeOpenCharge(transactionId, CANCELLED_TXN_STATUS, now))) return false;
  const txn = await tx.getTransaction(transactionId);
  if (!txn) return true;
  await tx.enqueueEvent({
    merchantId: txn.merchantId,
    kind: 'PAYMENT',
    eventType: 'PAYMENT',
    transactionId: txn.id,
    subscriptionId: s.id,
    notifyUrl: txn.notifyUrl,
    body: paymentCallbackBody(txn, ctx.zone, { id: s.id, code: s.code }),
    now,
  });
  return true;
}
