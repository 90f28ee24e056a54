import { z } from 'zod';
import type { Ctx } from '../ctx.js';
import { couponNotApplicable, couponRefusal } from '../domain/coupon.js';
import { notAllowed, notFound } from '../domain/errors.js';
import { parseInput, requiredString } from '../domain/fields.js';
import { isEnded } from '../domain/subscription-state.js';
import type { CouponRow, SubscriptionRow, Tx } from '../store/store.js';
import { couponPlanIds } from './coupons.js';
import { renewalPrice } from './plan-change/price.js';
import { subscriptionDetail, type SubscriptionDetail } from './subscriptions/index.js';

/**
 * Taking a coupon (SPEC §19): at the start (the SUBSCRIPTION request's couponCode) or later
 * (POST /subscription/coupon). A refusal is 1012 and, being thrown inside the unit of work,
 * changes nothing; the redemption is counted by one conditional write, so concurrent takers on
 * any number of instances never pass maxRedemptions.
 */
export const SUBSCRIPTION_COUPON_REQUEST = z.object({
  subscriptionId: requiredString(200),
  couponCode: requiredString(50),
});

/** Check `code` for `planId` and count its redemption, or 1012 with the reason. */
export async function redeemCoupon(
  tx: Tx,
  merchantId: string,
  code: string,
  planId: string,
  now: number,
): Promise<CouponRow> {
  const row = await tx.getCoupon(merchantId, code);
  if (!row) throw couponNotApplicable(code, 'UNKNOWN');
  const standing = { ...row, planIds: couponPlanIds(row) };
  const refusal = couponRefusal(standing, planId, now);
  if (refusal !== null) throw couponNotApplicable(code, refusal);
  // The read above may be stale under concurrency: the conditional write is the real check.
  if (!(await tx.reserveCouponRedemption(row.id, now))) throw couponNotApplicable(code, 'USED_UP');
  return row;
}

/**
 * POST /subscription/coupon: the coupon replaces the one held (if any) from the next charge on.
 * A PENDING renewal no run has claimed is re-priced now; a retry keeps its renewal's discount
 * and a charge under way is left as it is.
 */
export async function takeCoupon(ctx: Ctx, merchantId: string, input: unknown): Promise<SubscriptionDetail> {
  const data = parseInput(SUBSCRIPTION_COUPON_REQUEST, input);
  await ctx.store.transaction(async (tx) => {
    const s = await tx.lockSubscription(merchantId, data.subscriptionId);
    if (!s) throw notFound('subscription');
    if (isEnded(s.status)) throw notAllowed(`a ${s.status} subscription takes no coupon`);
    if (s.status === 'INCOMPLETE') throw notAllowed('the first charge of this subscription is not finished yet');
    const now = ctx.clock.now();
    // Checked for the plan its next charge is for: a change at period end may be waiting.
    const coupon = await redeemCoupon(tx, merchantId, data.couponCode, s.pendingPlanId ?? s.planId, now);
    const held = { couponId: coupon.id, couponCode: coupon.code, couponTakenAt: now };
    await tx.setSubscriptionCoupon(s.id, held, now);
    await repriceRenewals(tx, { ...s, ...held, couponCyclesUsed: 0 });
  });
  return subscriptionDetail(ctx, merchantId, { subscriptionId: data.subscriptionId });
}

async function repriceRenewals(tx: Tx, s: SubscriptionRow): Promise<void> {
  for (const r of await tx.pendingRecords(s.id))
    if (r.billingType === 'RENEW' && r.transactionId === null) await tx.repriceRecord(r.id, await renewalPrice(tx, s));
}
