import type { Ctx } from '../ctx.js';
import { billingTime, trialEnd } from '../domain/calendar.js';
import { PaygateError, RESULT_CODES } from '../domain/errors.js';
import { newId, newSubscriptionCode } from '../domain/ids.js';
import { subscriptionCallbackBody } from '../notify/payloads.js';
import { rowOf, type PlanRow, type TransactionRow, type Tx } from '../store/store.js';
import { sealCard, type ValidCard } from '../vault/card.js';
import { quoteCharge } from '../domain/discount.js';
import { couponTerms, spendCouponCycle } from './coupon-charge.js';
import { renewalPrice } from './plan-change/price.js';
import { redeemCoupon } from './take-coupon.js';

/**
 * The first charge of a subscription (SPEC §6, first rows of the table). Conventions the renewal
 * side relies on:
 *  - anchor_time = start (no trial) or the trial's end;
 *  - a RENEW record's cycle_index n has scheduled_time = billingTime(anchor, cycle, n):
 *    trial → first RENEW is n = 0 (at the anchor), no trial → n = 1; INITIAL has cycle_index 0;
 *  - paid_through = the first RENEW's time once the first charge succeeded;
 *  - billing_count / total_paid count the INITIAL success (a zero trial check counts, for 0);
 *    failed_count counts failed charges;
 *  - plans.current_subscriptions counts INCOMPLETE + ACTIVE + PAUSED: +1 here with ONE conditional
 *    UPDATE (never exceeded under concurrency), −1 when the first charge ends the subscription EXPIRED.
 * Every function here runs INSIDE the caller's unit of work (`tx`).
 */
export interface FirstCharge {
  subscriptionId: string;
  code: string;
  recordId: string;
  /** The INITIAL charge amount: 0 during a trial (a card check), else the plan price. */
  amount: number;
}

/** Take one place on the plan, or 1009. The store's conditional write is the whole check, so it cannot race. */
export async function reservePlanSlot(tx: Tx, plan: PlanRow): Promise<void> {
  if (!(await tx.reservePlanSlot(plan.id))) {
    const inactive = plan.status !== 'ACTIVE';
    throw new PaygateError(
      RESULT_CODES.PLAN_UNAVAILABLE,
      inactive ? 'plan not available: inactive' : 'plan not available: maxSubscriptions reached',
    );
  }
}

/** Create the INCOMPLETE subscription, its vaulted card and its PENDING INITIAL record. */
export async function createFirstCharge(
  ctx: Ctx,
  tx: Tx,
  a: {
    merchantId: string;
    plan: PlanRow;
    userId: string;
    card: ValidCard;
    notifyUrl: string | null;
    txnId: string;
    now: number;
    /** The first charge's billingAddress.email, where customer emails go (SPEC §17). */
    email?: string | undefined;
    /** JSON of the customer its invoices bill when a charge has no billingAddress (documents/issue.ts). */
    customer?: string | null | undefined;
    /** stripe: the card is kept by Stripe (its ids are recorded after the first charge), no number here. */
    cardChannel?: 'sandbox' | 'stripe';
    /** A coupon taken with the subscription (SPEC §19): 1012 when it cannot be, and nothing is written. */
    couponCode?: string | undefined;
  },
): Promise<FirstCharge> {
  await reservePlanSlot(tx, a.plan);
  const { plan, now } = a;
  const coupon = a.couponCode !== undefined ? await redeemCoupon(tx, a.merchantId, a.couponCode, plan.id, now) : null;
  const trial = plan.trialDays > 0;
  // A first charge the coupon brings to zero is still the card check a trial makes (amount 0
  // through the channel): the charges after the coupon need a card known to work (docs/coupons.md).
  const quote = quoteCharge(
    { kind: 'INITIAL', price: plan.price, trial },
    coupon ? { terms: couponTerms(coupon), takenAt: now, cyclesUsed: 0 } : null,
  );
  const card = sealCard(ctx.vault, a.merchantId, a.card, now, a.cardChannel ?? 'sandbox');
  await tx.insertCard(rowOf('cards', card));
  const subscriptionId = newId('sub', now);
  const code = newSubscriptionCode();
  const anchor = plan.trialDays > 0 ? trialEnd(now, plan.trialDays, ctx.zone) : now;
  await tx.insertSubscription(
    rowOf('subscriptions', {
      id: subscriptionId,
      code,
      merchantId: a.merchantId,
      planId: plan.id,
      userId: a.userId,
      cardId: card.id,
      amount: plan.price,
      currency: plan.currency,
      cycleType: plan.cycleType,
      cycleLength: plan.cycleLength,
      status: 'INCOMPLETE',
      anchorTime: anchor,
      startTime: now,
      notifyUrl: a.notifyUrl,
      initialTransactionId: a.txnId,
      billingCount: 0,
      failedCount: 0,
      totalPaid: 0,
      credit: 0,
      cardUpdateChecks: 0,
      couponId: coupon?.id ?? null,
      couponCode: coupon?.code ?? null,
      couponTakenAt: coupon ? now : null,
      couponCyclesUsed: 0,
      email: a.email ?? null,
      customer: a.customer ?? null,
      statusChangedAt: now,
      createdAt: now,
      updatedAt: now,
    }),
  );
  const recordId = newId('rec', now);
  const amount = trial ? 0 : quote.amount;
  await tx.insertBillingRecord(
    rowOf('billingRecords', {
      id: recordId,
      subscriptionId,
      merchantId: a.merchantId,
      billingType: 'INITIAL',
      amount,
      currency: plan.currency,
      scheduledTime: now,
      status: 'PENDING',
      transactionId: a.txnId,
      retryCount: 0,
      cycleIndex: 0,
      creditApplied: 0,
      creditGranted: 0,
      planId: plan.id,
      couponCode: quote.couponCode,
      discountAmount: quote.discountAmount,
      createdAt: now,
    }),
  );
  return { subscriptionId, code, recordId, amount };
}

/**
 * The first charge succeeded: INITIAL SUCCESS; an INCOMPLETE subscription becomes ACTIVE with its
 * first RENEW PENDING. Answers the service period the charge paid for (its invoice's line).
 */
export async function firstChargeSucceeded(
  ctx: Ctx,
  tx: Tx,
  txn: TransactionRow,
  now: number,
): Promise<{ from: number; to: number } | undefined> {
  if (!txn.subscriptionId || !txn.billingRecordId) return undefined;
  const sub = await tx.getSubscriptionById(txn.subscriptionId);
  if (!sub) return undefined;
  await tx.settleFirstRecord(txn.billingRecordId, 'SUCCESS', null, now);
  const trial = sub.anchorTime !== sub.startTime;
  const cycle = { cycleType: sub.cycleType, cycleLength: sub.cycleLength };
  const cycleIndex = trial ? 0 : 1;
  const firstRenew = billingTime(sub.anchorTime, cycle, cycleIndex, ctx.zone);
  const record = await tx.getRecord(txn.billingRecordId);
  const couponCyclesUsed = record
    ? await spendCouponCycle(
        tx,
        sub,
        {
          ...record,
          planId: sub.planId,
          price: record.amount + record.creditApplied + record.discountAmount,
        },
        now,
      )
    : sub.couponCyclesUsed;
  // A charge under way when the subscription was cancelled still counts, but schedules nothing (SPEC §6).
  const period = { from: sub.anchorTime, to: firstRenew };
  if (!(await tx.activateSubscription(sub.id, { paidThrough: firstRenew, amount: txn.amount, now }))) return period;
  await tx.insertPendingRecord({
    subscriptionId: sub.id,
    merchantId: sub.merchantId,
    billingType: 'RENEW',
    ...(await renewalPrice(tx, { ...sub, couponCyclesUsed })),
    currency: sub.currency,
    scheduledTime: firstRenew,
    retryCount: 0,
    cycleIndex,
    now,
  });
  return period;
}

/**
 * The first charge failed (declined, 3DS failed or expired): INITIAL FAILED, the subscription
 * EXPIRED, its card deleted, its plan place released. `notify` adds the SUBSCRIPTION_EXPIRED
 * callback (an INCOMPLETE subscription the merchant was told about).
 */
export async function firstChargeFailed(
  ctx: Ctx,
  tx: Tx,
  txn: TransactionRow,
  reason: string,
  now: number,
  notify: boolean,
): Promise<void> {
  if (!txn.subscriptionId || !txn.billingRecordId) return;
  // A record the merchant already cancelled (subscription cancelled while 3DS was open) is not a failed charge.
  const counted = await tx.settleFirstRecord(txn.billingRecordId, 'FAILED', reason, now);
  const sub = await tx.getSubscriptionById(txn.subscriptionId);
  if (!sub) return;
  const expired = await tx.expireSubscription(sub.id, now);
  if (!expired) {
    if (counted) await tx.addChargeToSubscription(sub.id, { approved: false, amount: 0, paidThrough: null, now });
  } else {
    await tx.releasePlanSlot(sub.planId);
    // Like its plan place, a subscription that never started gives its coupon redemption back.
    if (sub.couponId !== null) await tx.releaseCouponRedemption(sub.couponId);
  }
  if (sub.cardId) await tx.deleteCard(sub.cardId);
  if (notify && expired) {
    const after = await tx.getSubscriptionById(sub.id);
    const record = await tx.getRecord(txn.billingRecordId);
    if (after && record) {
      await tx.enqueueEvent({
        merchantId: sub.merchantId,
        kind: 'SUBSCRIPTION',
        eventType: 'SUBSCRIPTION_EXPIRED',
        subscriptionId: sub.id,
        transactionId: txn.id,
        notifyUrl: sub.notifyUrl,
        body: subscriptionCallbackBody({
          eventType: 'SUBSCRIPTION_EXPIRED',
          subscription: after,
          record,
          nextBillingTime: null,
          eventTime: now,
          zone: ctx.zone,
        }),
        now,
      });
    }
  }
}

/** Status of a transaction's subscription (a cancelled one stops its open 3DS page, SPEC §6). */
export async function subscriptionStatusOf(ctx: Ctx, subscriptionId: string): Promise<string | undefined> {
  return (await ctx.store.getSubscriptionById(subscriptionId))?.status;
}
