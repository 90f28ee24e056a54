import type { Ctx } from '../../ctx.js';
import { firstBillingAfter, trialEnd } from '../../domain/calendar.js';
import { isCounted, isEnded } from '../../domain/subscription-state.js';
import { subscriptionCallbackBody, type SubscriptionEventType } from '../../notify/payloads.js';
import { rowOf, type BillingRecordRow, type ClaimedRecord, type SubscriptionRow, type Tx } from '../../store/store.js';
import { cardUpdateUrl } from '../card-update/link.js';
import { discountOf, issueInvoice, type IssuedInvoice } from '../documents/issue.js';
import { renewalPrice } from '../plan-change/price.js';
import { spendCouponCycle } from '../coupon-charge.js';
import { endSubscription } from '../subscriptions/end.js';
import { STATUS } from '../transactions/status.js';
import type { ChargeOutcome } from './charge.js';
import { emailRenewalFailure } from './emails.js';

/** An outcome the channel gave: approved or declined (a waiting one is not recorded). */
type Charged = Exclude<ChargeOutcome, { waiting: true }>;

export type RecordedAs =
  | 'succeeded'
  | 'retry_scheduled'
  | 'subscription_failed'
  | 'failed'
  | 'already_recorded'
  /** A renewal taken over on a subscription cancelled or paused since: no charge was made, none will be. */
  | 'cancelled';

/**
 * Record a charge's outcome INSIDE one unit of work with everything it
 * causes (SPEC §6/§8): record SUCCESS/FAILED, the transaction's final status, the counters, the
 * next RENEW or RETRY (only while the subscription is ACTIVE: a charge under way when it was
 * paused or cancelled is recorded but schedules nothing), FAILED after the last retry, and the
 * SUBSCRIPTION callback in the outbox. A record another run already settled is left alone.
 *
 * A success recorded after the subscription was cancelled moves its endTime to the end of the
 * period the charge paid for (SPEC §6: endTime is the end of the paid period): the subscriber gets
 * what they paid for, and the callback (endTime, paidThrough) and the receipt say so. One recorded
 * while it is paused moves paidThrough only (a resume then schedules the next RENEW after it).
 */
export async function recordOutcome(
  ctx: Ctx,
  tx: Tx,
  rec: ClaimedRecord,
  out: Charged,
  now: number,
): Promise<RecordedAs> {
  if ('cancelled' in out) return recordUnmade(tx, rec, now);
  const failReason = out.approved ? null : out.reason;
  if (!(await tx.settleRecord(rec.id, out.approved ? 'SUCCESS' : 'FAILED', failReason, now))) return 'already_recorded';
  if (rec.transactionId) {
    await tx.finishRenewalTransaction(rec.transactionId, {
      approved: out.approved,
      failReason,
      channelRef: out.ref,
      now,
    });
  }
  const s = await tx.getSubscriptionById(rec.subscriptionId);
  if (!s) return out.approved ? 'succeeded' : 'failed';
  const active = s.status === 'ACTIVE';
  let next: number | null = null;
  let eventType: SubscriptionEventType;
  let result: RecordedAs;
  let after: SubscriptionRow = s;
  let switchedFrom: string | undefined;
  let updateCardUrl: string | undefined;
  let invoice: IssuedInvoice | undefined;

  if (out.approved) {
    // A record priced for another plan is the renewal a change at period end waited for.
    const target =
      rec.recordPlanId !== null && rec.recordPlanId !== s.planId && isCounted(s.status)
        ? await tx.getPlan(s.merchantId, rec.recordPlanId)
        : undefined;
    const credit = Math.max(0, s.credit - rec.creditApplied);
    let cur: SubscriptionRow = { ...s, credit };
    if (target) {
      // The new plan's calendar anchors on this renewal's date (a retry's: on the charge).
      const anchorTime = rec.billingType === 'RENEW' ? rec.scheduledTime : now;
      cur = {
        ...cur,
        planId: target.id,
        amount: target.price,
        cycleType: target.cycleType,
        cycleLength: target.cycleLength,
        anchorTime,
        pendingPlanId: null,
      };
    }
    // Keeps the anchor; catch-up: several cycles behind → this one charge, next RENEW after now.
    const following = firstBillingAfter(
      cur.anchorTime,
      { cycleType: cur.cycleType, cycleLength: cur.cycleLength },
      now,
      ctx.zone,
    );
    await tx.addChargeToSubscription(s.id, { approved: true, amount: rec.amount, paidThrough: following.time, now });
    const couponCyclesUsed = await spendCouponCycle(
      tx,
      s,
      {
        billingType: rec.billingType,
        subscriptionId: s.id,
        planId: rec.recordPlanId ?? s.planId,
        couponCode: rec.couponCode,
        discountAmount: rec.discountAmount,
        price: rec.amount + rec.creditApplied + rec.discountAmount,
        scheduledTime: rec.scheduledTime,
      },
      now,
    );
    if (target) {
      await tx.applyPlanChange(s.id, { ...cur, paidThrough: following.time, now });
      await tx.releasePlanSlot(s.planId);
      switchedFrom = s.planId;
    } else if (rec.creditApplied > 0) {
      await tx.spendCredit(s.id, rec.creditApplied, now);
    }
    cur = { ...cur, paidThrough: following.time, couponCyclesUsed };
    if (s.status === 'CANCELLED' && (s.endTime === null || s.endTime < following.time)) {
      await tx.setSubscriptionStatus(s.id, { status: s.status, now, endTime: following.time });
      cur = { ...cur, endTime: following.time };
    }
    after = cur;
    if (active) {
      next = following.time;
      await tx.insertPendingRecord({
        subscriptionId: s.id,
        merchantId: s.merchantId,
        billingType: 'RENEW',
        ...(await renewalPrice(tx, cur)),
        currency: s.currency,
        scheduledTime: next,
        retryCount: 0,
        cycleIndex: following.n,
        now,
      });
    }
    if (rec.transactionId)
      invoice = await issueInvoice(
        ctx,
        tx,
        {
          transactionId: rec.transactionId,
          merchantId: s.merchantId,
          relationId: null,
          amount: rec.amount,
          currency: rec.currency,
          cardBrand: rec.brand,
          cardLast4: rec.last4,
          billingAddress: null,
          items: null,
          subscriptionId: s.id,
          subscriptionCode: s.code,
          userId: s.userId,
          subscriber: s,
        },
        {
          planId: rec.recordPlanId ?? s.planId,
          // A retry pays for the period its renewal was for: from where the paid time ran out.
          from: s.paidThrough ?? rec.scheduledTime,
          to: following.time,
          // The coupon's discount comes off the price before the plan change's credit (SPEC §19).
          reductions: [...discountOf(rec), { description: 'Credit from a plan change', amount: rec.creditApplied }],
        },
        now,
        // The receipt of a charge that completed after a cancel or pause says what it paid for.
        s.status === 'CANCELLED' || s.status === 'PAUSED' ? { status: s.status, until: following.time } : undefined,
      );
    eventType = 'RENEW_SUCCEEDED';
    result = 'succeeded';
  } else {
    await tx.addChargeToSubscription(s.id, { approved: false, amount: rec.amount, paidThrough: null, now });
    const delayDays = ctx.config.retryDays[rec.retryCount];
    if (active && delayDays !== undefined) {
      // Retries fall whole calendar days after the failure, at the same local time.
      next = trialEnd(now, delayDays, ctx.zone);
      await tx.insertPendingRecord({
        subscriptionId: s.id,
        merchantId: s.merchantId,
        billingType: 'RETRY',
        // A retry charges what its renewal did: the same plan, the same earmarked credit, the same discount.
        amount: rec.amount,
        creditApplied: rec.creditApplied,
        couponCode: rec.couponCode,
        discountAmount: rec.discountAmount,
        planId: rec.recordPlanId,
        currency: s.currency,
        scheduledTime: next,
        retryCount: rec.retryCount + 1,
        cycleIndex: rec.cycleIndex,
        now,
      });
      eventType = 'RENEW_FAILED';
      result = 'retry_scheduled';
      updateCardUrl = await cardUpdateUrl(ctx, tx, s, now);
      await emailRenewalFailure(ctx, tx, s, rec, { failReason, nextAttemptAt: next, updateCardUrl, now });
    } else if (active) {
      await endSubscription(tx, s, 'FAILED', { now, endTime: now });
      await emailRenewalFailure(ctx, tx, s, rec, { failReason, nextAttemptAt: null, updateCardUrl: undefined, now });
      eventType = 'SUBSCRIPTION_FAILED';
      result = 'subscription_failed';
    } else {
      eventType = 'RENEW_FAILED';
      result = 'failed';
    }
  }

  // The callback describes the state after the change; built in memory (no re-reads on the hot path).
  if (result === 'subscription_failed') after = { ...s, status: 'FAILED' };
  // A subscription that ended while this charge was under way kept its card for it; drop it now.
  if (isEnded(s.status) && s.cardId !== null && (await tx.pendingRecords(s.id)).length === 0)
    await tx.deleteCard(s.cardId);
  const record: BillingRecordRow = rowOf('billingRecords', {
    id: rec.id,
    subscriptionId: rec.subscriptionId,
    merchantId: rec.merchantId,
    billingType: rec.billingType,
    amount: rec.amount,
    currency: rec.currency,
    scheduledTime: rec.scheduledTime,
    actualTime: now,
    status: out.approved ? 'SUCCESS' : 'FAILED',
    transactionId: rec.transactionId,
    failReason,
    retryCount: rec.retryCount,
    cycleIndex: rec.cycleIndex,
    creditApplied: rec.creditApplied,
    creditGranted: 0,
    planId: rec.recordPlanId,
    couponCode: rec.couponCode,
    discountAmount: rec.discountAmount,
    createdAt: now,
  });
  await tx.enqueueEvent({
    merchantId: s.merchantId,
    kind: 'SUBSCRIPTION',
    eventType,
    transactionId: rec.transactionId,
    subscriptionId: s.id,
    notifyUrl: s.notifyUrl,
    body: subscriptionCallbackBody({
      eventType,
      subscription: after,
      record,
      nextBillingTime: next,
      eventTime: now,
      zone: ctx.zone,
      ...(updateCardUrl !== undefined ? { updateCardUrl } : {}),
      ...(invoice ? { invoice } : {}),
    }),
    now,
  });
  if (switchedFrom !== undefined) {
    await tx.enqueueEvent({
      merchantId: s.merchantId,
      kind: 'SUBSCRIPTION',
      eventType: 'PLAN_CHANGED',
      transactionId: rec.transactionId,
      subscriptionId: s.id,
      notifyUrl: s.notifyUrl,
      body: subscriptionCallbackBody({
        eventType: 'PLAN_CHANGED',
        subscription: after,
        record,
        nextBillingTime: next,
        eventTime: now,
        zone: ctx.zone,
        change: { previousPlanId: switchedFrom, when: 'PERIOD_END', credit: 0 },
      }),
      now,
    });
  }
  return result;
}

/**
 * A renewal taken over on a subscription cancelled or paused since, for which the channel made no
 * charge and closed the key: the record ends CANCELLED, as the records no run had claimed did at
 * the cancel or pause, and its RENEWAL transaction CANCELLED (300020) — nothing charged, no
 * invoice, no receipt, no callback. An ended subscription's card goes once nothing is under way.
 */
async function recordUnmade(tx: Tx, rec: ClaimedRecord, now: number): Promise<RecordedAs> {
  if (!(await tx.settleRecord(rec.id, 'CANCELLED', null, now))) return 'already_recorded';
  if (rec.transactionId)
    await tx.updateTransactionIf(rec.transactionId, STATUS.ACCEPTED, {
      status: STATUS.CANCELLED,
      txnTime: now,
      updatedAt: now,
    });
  const s = await tx.getSubscriptionById(rec.subscriptionId);
  if (s && isEnded(s.status) && s.cardId !== null && (await tx.pendingRecords(s.id)).length === 0)
    await tx.deleteCard(s.cardId);
  return 'cancelled';
}
