import type { Ctx } from '../../ctx.js';
import { billingTime } from '../../domain/calendar.js';
import { notAllowed, notFound, PaygateError, RESULT_CODES } from '../../domain/errors.js';
import { newId } from '../../domain/ids.js';
import { isCounted, isEnded } from '../../domain/subscription-state.js';
import { rowOf, type SubscriptionRow, type Tx } from '../../store/store.js';
import { cardExpired } from '../../vault/card.js';
import { changeInvoice } from './invoice.js';
import { chargeKeptCard, type ChangeOutcome } from './kept-card.js';
import { spendCouponCycle } from '../coupon-charge.js';
import { notifyChanged } from './notify.js';
import { renewalPrice } from './price.js';
import { assertShown, quoteChange, renewalInTheWay, type ShownQuote } from './quote.js';
import type { ChangePlanInput } from './request.js';
import { lockForChange, reserveTarget } from './rules.js';
import { changeResult, type ChangeResult } from './view.js';

/** The renewal transaction status codes (SPEC §5) a CHANGE charge's transaction goes through. */
const ACCEPTED = 100000;

/** How long a CHANGE record may wait for its request before the renewal run finishes it (as a renewal claim's lease). */
export const CHANGE_LEASE_MS = 10 * 60_000;

/**
 * A change that takes effect now (SPEC: the unused part of the paid period is credited by time,
 * rounded down; the new price less that credit and any carried credit is charged at once as a
 * CHANGE record; a credit larger than the price is carried; the new calendar starts now).
 *
 * Three steps, the channel between two units of work: (1) the intent — checks, the new plan's
 * place, the PENDING CHANGE record and its ACCEPTED transaction; (2) the charge, the record id as
 * idempotency key; (3) the outcome — approved: the plan switches; declined: the old plan stays,
 * the place is given back.
 */
export async function changeNow(
  ctx: Ctx,
  merchantId: string,
  req: ChangePlanInput,
  shown?: ShownQuote,
): Promise<ChangeResult> {
  const recordId = await ctx.store.transaction((tx) => writeIntent(ctx, tx, merchantId, req, shown));
  const out = await chargeChange(ctx, recordId);
  if ('waiting' in out) return pendingChange(ctx, recordId);
  if ('refused' in out) {
    // Stripe ran nothing (a revoked key): the change ends declined, and the caller learns why.
    await ctx.store.transaction((tx) =>
      recordChange(ctx, tx, recordId, { approved: false, reason: 'processing_error', ref: null }),
    );
    throw new PaygateError(
      RESULT_CODES.INTERNAL,
      `the payment channel refused the request, nothing was charged and the plan did not change: ${out.message}`,
    );
  }
  return ctx.store.transaction((tx) => recordChange(ctx, tx, recordId, out));
}

/**
 * Stripe has not said how the CHANGE charge ended (no answer in time, an intent still
 * processing): nothing moves yet. The answer says PENDING with the record; the renewal run
 * finishes it from the intent Stripe holds (never a second charge) and PLAN_CHANGED reports it.
 */
async function pendingChange(ctx: Ctx, recordId: string): Promise<ChangeResult> {
  const record = await ctx.store.getRecord(recordId);
  const s = record ? await ctx.store.getSubscriptionById(record.subscriptionId) : undefined;
  if (!record || !s) throw notFound('subscription');
  return changeResult(ctx, s, {
    when: 'NOW',
    result: 'PENDING',
    credit: record.creditGranted,
    next: await ctx.store.nextBillingTime(s.id),
    record,
  });
}

/**
 * A plan change whose request died between its intent and its outcome (a crash, a channel fault)
 * leaves its CHANGE record PENDING, the subscription refusing other changes. The renewal run
 * finishes such records once they are older than the lease: the charge is repeated with the same
 * idempotency key (the channel answers its first result, or charges now if it never got the
 * call), and the outcome recorded as the request would have. Returns how many it finished.
 */
export async function resumeStaleChanges(ctx: Ctx): Promise<number> {
  let done = 0;
  for (const id of await ctx.store.stalePendingChanges(ctx.clock.now() - CHANGE_LEASE_MS, 100)) {
    const out = await chargeChange(ctx, id, true);
    // Stripe still has not said: asked again by the next run.
    if ('waiting' in out) continue;
    const settled: Settled = 'refused' in out ? { approved: false, reason: 'processing_error', ref: null } : out;
    await ctx.store.transaction((tx) => recordChange(ctx, tx, id, settled));
    done++;
  }
  return done;
}

/**
 * `shown`: the figure a subscriber was shown (the portal): credited as of the instant it was drawn
 * (as Stripe's proration_date), and checked under the lock — anything moved, nothing is written.
 */
async function writeIntent(
  ctx: Ctx,
  tx: Tx,
  merchantId: string,
  req: ChangePlanInput,
  shown: ShownQuote | undefined,
): Promise<string> {
  const { s, plan } = await lockForChange(tx, merchantId, req.subscriptionId, req.planId);
  const now = ctx.clock.now();
  if (plan.id === s.planId) throw notAllowed('the subscription is already on this plan');
  renewalInTheWay(await tx.pendingRecords(s.id), now);
  const card = s.cardId !== null ? await tx.getCard(s.cardId) : undefined;
  if (!card) throw notAllowed('the subscription has no card on file');
  const quote = await quoteChange(tx, s, plan, shown?.at ?? now, ctx.zone);
  if (shown) assertShown(quote, shown);
  // A change at period end already holds the place on this plan.
  if (plan.id !== s.pendingPlanId) await reserveTarget(tx, plan);
  const { charge, credit } = quote;
  const recordId = newId('rec', now);
  const txnId = newId('txn', now);
  await tx.insertTransaction(
    rowOf('transactions', {
      id: txnId,
      merchantId,
      paymentType: 'RENEWAL',
      status: ACCEPTED,
      amount: charge,
      currency: plan.currency,
      refundedAmount: 0,
      refundReserved: 0,
      subscriptionId: s.id,
      billingRecordId: recordId,
      planId: plan.id,
      userId: s.userId,
      cardBin: card.bin,
      cardLast4: card.last4,
      cardBrand: card.brand,
      notifyUrl: s.notifyUrl,
      // A card Stripe keeps is charged through Stripe, whatever the merchant's channel is now.
      channel: card.channel === 'stripe' ? 'stripe' : ctx.channel.name,
      checkoutDeclines: 0,
      createdAt: now,
      updatedAt: now,
    }),
  );
  await tx.insertBillingRecord(
    rowOf('billingRecords', {
      id: recordId,
      subscriptionId: s.id,
      merchantId,
      billingType: 'CHANGE',
      amount: charge,
      currency: plan.currency,
      scheduledTime: now,
      status: 'PENDING',
      transactionId: txnId,
      retryCount: 0,
      cycleIndex: 0,
      creditApplied: quote.amount - charge,
      creditGranted: credit,
      planId: plan.id,
      couponCode: quote.couponCode,
      discountAmount: quote.discountAmount,
      createdAt: now,
    }),
  );
  return recordId;
}

/** A CHANGE charge's final answer: recorded by recordChange. */
type Settled = Extract<ChangeOutcome, { approved: boolean }>;

/** Merchant-initiated like a renewal (the subscriber is not on a page): a channel asking for 3DS is a decline. */
async function chargeChange(ctx: Ctx, recordId: string, resumed = false): Promise<ChangeOutcome> {
  const now = ctx.clock.now();
  const record = await ctx.store.getRecord(recordId);
  const s = record ? await ctx.store.getSubscriptionById(record.subscriptionId) : undefined;
  const card = s?.cardId ? await ctx.store.getCard(s.cardId) : undefined;
  // Ended meanwhile (its card deleted): nothing to charge.
  if (!record || !card) return { approved: false, reason: 'processing_error', ref: null };
  // SPEC §19: a charge the coupon brought to zero is paid without calling the channel.
  if (record.amount === 0 && record.discountAmount > 0) return { approved: true, ref: null };
  if (card.channel === 'stripe') return chargeKeptCard(ctx, record, card, now, resumed);
  if (card.panEnc === null) return { approved: false, reason: 'processing_error', ref: null };
  if (cardExpired(card.expMonth, card.expYear, now, ctx.zone))
    return { approved: false, reason: 'expired_card', ref: null };
  const result = await ctx.channel.charge({
    idempotencyKey: record.id,
    amount: record.amount,
    currency: record.currency,
    card: { number: ctx.vault.decrypt(card.panEnc), expMonth: card.expMonth, expYear: card.expYear },
    customerPresent: false,
  });
  if (result.outcome === 'approved') return { approved: true, ref: result.ref };
  if (result.outcome === 'declined') return { approved: false, reason: result.reason, ref: result.ref };
  return { approved: false, reason: 'authentication_failed', ref: result.ref };
}

async function recordChange(ctx: Ctx, tx: Tx, recordId: string, out: Settled): Promise<ChangeResult> {
  const now = ctx.clock.now();
  const failReason = out.approved ? null : out.reason;
  const settled = await tx.settleFirstRecord(recordId, out.approved ? 'SUCCESS' : 'FAILED', failReason, now);
  const record = await tx.getRecord(recordId);
  const s = record ? await tx.lockSubscription(record.merchantId, record.subscriptionId) : undefined;
  const plan = record?.planId && s ? await tx.getPlan(s.merchantId, record.planId) : undefined;
  if (!record || !s || !plan) throw notFound('subscription');
  const merchantId = s.merchantId;
  const i = { plan, credit: record.creditGranted, charge: record.amount };
  if (!settled) {
    // Another caller (the renewal run finishing a stale change) recorded it first: report what is there.
    const result = record.status !== 'SUCCESS' ? 'DECLINED' : s.planId === plan.id ? 'CHANGED' : 'ENDED';
    return changeResult(ctx, s, {
      when: 'NOW',
      result,
      credit: i.credit,
      next: await tx.nextBillingTime(s.id),
      record,
    });
  }
  if (record.transactionId)
    await tx.finishRenewalTransaction(record.transactionId, {
      approved: out.approved,
      failReason,
      channelRef: out.ref,
      now,
    });
  await tx.addChargeToSubscription(s.id, { approved: out.approved, amount: i.charge, paidThrough: null, now });
  const cycle = { cycleType: i.plan.cycleType, cycleLength: i.plan.cycleLength };
  const paidThrough = billingTime(now, cycle, 1, ctx.zone);
  // Money moved, even for a subscription cancelled meanwhile: the charge has its invoice.
  const invoice = out.approved ? await changeInvoice(ctx, tx, record, s, paidThrough, now) : undefined;
  // The place taken on the new plan, unless a change at period end already held it.
  const releaseTarget = async () => {
    if (i.plan.id !== s.pendingPlanId) await tx.releasePlanSlot(i.plan.id);
  };

  if (!out.approved || !isCounted(s.status)) {
    // Declined: the old plan stays. Approved but cancelled meanwhile: the money counts, the plan does not move.
    await releaseTarget();
    if (isEnded(s.status) && s.cardId !== null && (await tx.pendingRecords(s.id)).length === 0)
      await tx.deleteCard(s.cardId);
    const result = out.approved ? 'ENDED' : 'DECLINED';
    return changeResult(ctx, s, {
      when: 'NOW',
      result,
      credit: i.credit,
      next: await tx.nextBillingTime(s.id),
      record,
    });
  }

  await tx.cancelUnclaimedRecords(s.id);
  const price = record.amount + record.creditApplied + record.discountAmount;
  const couponCyclesUsed = await spendCouponCycle(tx, s, { ...record, planId: i.plan.id, price }, now);
  const after: SubscriptionRow = {
    ...s,
    couponCyclesUsed,
    planId: i.plan.id,
    amount: i.plan.price,
    ...cycle,
    anchorTime: now,
    paidThrough,
    // What the fresh credit and the carried credit leave once this charge spent its part.
    credit: Math.max(0, i.credit + s.credit - record.creditApplied),
    pendingPlanId: null,
  };
  await tx.applyPlanChange(s.id, { ...after, now });
  await tx.releasePlanSlot(s.planId);
  if (s.pendingPlanId !== null && s.pendingPlanId !== i.plan.id) await tx.releasePlanSlot(s.pendingPlanId);
  let next: number | null = null;
  if (s.status === 'ACTIVE') {
    next = paidThrough;
    await tx.insertPendingRecord({
      subscriptionId: s.id,
      merchantId,
      billingType: 'RENEW',
      ...(await renewalPrice(tx, after)),
      currency: s.currency,
      scheduledTime: paidThrough,
      retryCount: 0,
      cycleIndex: 1,
      now,
    });
  }
  const view = { ...after, billingCount: s.billingCount + 1, totalPaid: s.totalPaid + i.charge };
  await notifyChanged(ctx, tx, view, record, next, { previousPlanId: s.planId, credit: i.credit }, now, invoice);
  return changeResult(ctx, after, { when: 'NOW', result: 'CHANGED', credit: i.credit, next, record });
}
