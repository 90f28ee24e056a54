import type { Ctx } from '../../ctx.js';
import { amountNumber } from '../../domain/money.js';
import { formatTime } from '../../domain/time.js';
import type { BillingRecordRow, SubscriptionRow } from '../../store/store.js';

/**
 * Response shapes of SERVICE.md (subscription detail, user list element, billing record):
 * amounts are JSON numbers, times `yyyy-MM-dd HH:mm:ss` in the configured zone, and fields
 * without a value are left out (SPEC §3).
 */
export interface SubscriptionListItem {
  subscriptionId: string;
  subscriptionCode: string;
  userId: string;
  planId: string;
  planName: string;
  amount: number;
  currency: string;
  status: string;
  nextBillingTime?: string;
  startTime: string;
  endTime?: string;
  cancelTime?: string;
  billingCount: number;
  failedCount: number;
  createTime: string;
}

export interface SubscriptionDetail extends SubscriptionListItem {
  planDescription?: string;
  cycleType: string;
  cycleLength: number;
  totalPaid: number;
  /** Credit left over from a plan change, spent by the next charges. */
  creditBalance?: number;
  /** The plan the next renewal moves to (a plan change at period end). */
  pendingPlanId?: string;
  /** The coupon held (SPEC §19) while it still has a charge to discount. */
  couponCode?: string;
  /** What the coupon takes off the next charge, when that charge is already priced with it. */
  discountAmount?: number;
  /** Where customer emails go (SPEC §17). */
  email?: string;
}

export interface BillingRecordView {
  recordId: string;
  subscriptionCode: string;
  billingType: string;
  amount: number;
  currency: string;
  scheduledTime: string;
  actualTime?: string;
  status: string;
  transactionOrderId?: string;
  failReason?: string;
  retryCount: number;
  /** The coupon that discounted this charge, and by how much (SPEC §19). */
  couponCode?: string;
  discountAmount?: number;
  createTime: string;
}

const optTime = (ms: number | null, zone: string): { v?: string } => (ms === null ? {} : { v: formatTime(ms, zone) });

export function subscriptionListItem(
  ctx: Ctx,
  s: SubscriptionRow,
  planName: string,
  next: number | null,
): SubscriptionListItem {
  const nextT = optTime(next, ctx.zone).v;
  const endT = optTime(s.endTime, ctx.zone).v;
  const cancelT = optTime(s.cancelTime, ctx.zone).v;
  return {
    subscriptionId: s.id,
    subscriptionCode: s.code,
    userId: s.userId,
    planId: s.planId,
    planName,
    amount: amountNumber(s.amount, s.currency),
    currency: s.currency,
    status: s.status,
    ...(nextT !== undefined ? { nextBillingTime: nextT } : {}),
    startTime: formatTime(s.startTime, ctx.zone),
    ...(endT !== undefined ? { endTime: endT } : {}),
    ...(cancelT !== undefined ? { cancelTime: cancelT } : {}),
    billingCount: s.billingCount,
    failedCount: s.failedCount,
    createTime: formatTime(s.createdAt, ctx.zone),
  };
}

export function subscriptionDetailView(
  ctx: Ctx,
  s: SubscriptionRow,
  plan: { name: string; description: string | null },
  next: number | null,
  /** The code of the coupon held, when it still lasts, and what it takes off the next charge. */
  coupon: { couponCode: string | null; discount: number } = { couponCode: null, discount: 0 },
): SubscriptionDetail {
  const item = subscriptionListItem(ctx, s, plan.name, next);
  const { subscriptionId, subscriptionCode, userId, planId, planName, amount, currency, ...rest } = item;
  // Field order as SERVICE.md's detail table.
  return {
    subscriptionId,
    subscriptionCode,
    userId,
    planId,
    planName,
    ...(plan.description ? { planDescription: plan.description } : {}),
    amount,
    currency,
    cycleType: s.cycleType,
    cycleLength: s.cycleLength,
    ...rest,
    totalPaid: amountNumber(s.totalPaid, s.currency),
    ...(s.credit > 0 ? { creditBalance: amountNumber(s.credit, s.currency) } : {}),
    ...(s.pendingPlanId !== null ? { pendingPlanId: s.pendingPlanId } : {}),
    ...(coupon.couponCode !== null ? { couponCode: coupon.couponCode } : {}),
    ...(coupon.couponCode !== null && coupon.discount > 0
      ? { discountAmount: amountNumber(coupon.discount, s.currency) }
      : {}),
    ...(s.email !== null ? { email: s.email } : {}),
  };
}

export function billingRecordView(ctx: Ctx, r: BillingRecordRow, subscriptionCode: string): BillingRecordView {
  const actualT = optTime(r.actualTime, ctx.zone).v;
  return {
    recordId: r.id,
    subscriptionCode,
    billingType: r.billingType,
    amount: amountNumber(r.amount, r.currency),
    currency: r.currency,
    scheduledTime: formatTime(r.scheduledTime, ctx.zone),
    ...(actualT !== undefined ? { actualTime: actualT } : {}),
    status: r.status,
    ...(r.transactionId ? { transactionOrderId: r.transactionId } : {}),
    ...(r.failReason ? { failReason: r.failReason } : {}),
    retryCount: r.retryCount,
    ...(r.couponCode !== null && r.discountAmount > 0
      ? { couponCode: r.couponCode, discountAmount: amountNumber(r.discountAmount, r.currency) }
      : {}),
    createTime: formatTime(r.createdAt, ctx.zone),
  };
}
