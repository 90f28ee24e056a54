import { z } from 'zod';
import type { Ctx } from '../../ctx.js';
import { notFound } from '../../domain/errors.js';
import { blankAbsent, integerField, parseInput, requiredString } from '../../domain/fields.js';
import { SUBSCRIPTION_STATUSES } from '../../domain/subscription-state.js';
import type { SubscriptionRow } from '../../store/store.js';
import { couponLasts } from '../../domain/discount.js';
import { couponInForce } from '../coupon-charge.js';
import {
  billingRecordView,
  subscriptionDetailView,
  subscriptionListItem,
  type BillingRecordView,
  type SubscriptionDetail,
  type SubscriptionListItem,
} from './views.js';

/** An optional field sent empty (a GET query `status=`) counts as absent. */

const statusField = blankAbsent(
  z.enum(SUBSCRIPTION_STATUSES, { error: `must be one of ${SUBSCRIPTION_STATUSES.join(', ')}` }),
);
export const RECORD_STATUSES = ['PENDING', 'SUCCESS', 'FAILED', 'CANCELLED'] as const;

/** Detail, pause, resume and cancel name one subscription. */
export const SUBSCRIPTION_ID_REQUEST = z.object({ subscriptionId: requiredString(200) });

/** `input` is the raw request object ({subscriptionId, …}) or just the id. */
export function subscriptionIdOf(input: unknown): string {
  const obj = typeof input === 'string' ? { subscriptionId: input } : input;
  return parseInput(SUBSCRIPTION_ID_REQUEST, obj).subscriptionId;
}

/** This merchant's subscription or 1007 (unknown and foreign ids answer alike, SPEC §2). */
export async function requireSubscription(
  ctx: Ctx,
  merchantId: string,
  subscriptionId: string,
): Promise<SubscriptionRow> {
  const row = await ctx.store.getSubscription(merchantId, subscriptionId);
  if (!row) throw notFound('subscription');
  return row;
}

export async function subscriptionDetail(ctx: Ctx, merchantId: string, input: unknown): Promise<SubscriptionDetail> {
  const s = await requireSubscription(ctx, merchantId, subscriptionIdOf(input));
  const plan = (await ctx.store.getPlanInfo(s.planId)) ?? { name: '', description: null };
  const coupon = await couponInForce(ctx.store, s, s.pendingPlanId ?? s.planId);
  const couponCode = couponLasts(coupon) ? s.couponCode : null;
  // The discount the next charge gets (its PENDING record was priced with the coupon).
  const [next] = couponCode !== null ? await ctx.store.pendingRecords(s.id) : [];
  const discount = next && next.couponCode === couponCode ? next.discountAmount : 0;
  return subscriptionDetailView(ctx, s, plan, await ctx.store.nextBillingTime(s.id), { couponCode, discount });
}

export const USER_LIST_REQUEST = z.object({ userId: requiredString(200), status: statusField });

/** GET /subscription/user/list: a user's subscriptions, newest first. */
export async function listUserSubscriptions(
  ctx: Ctx,
  merchantId: string,
  input: unknown,
): Promise<SubscriptionListItem[]> {
  const data = parseInput(USER_LIST_REQUEST, input);
  return listSubscriptions(ctx, merchantId, data);
}

const merchantListSchema = z.object({
  userId: blankAbsent(requiredString(200)),
  status: statusField,
  limit: blankAbsent(integerField(1, 10_000)),
});

/** The CLI's `sub list`: like the user list, the user optional (then the newest `limit`, default 100). */
export async function listSubscriptions(ctx: Ctx, merchantId: string, input: unknown): Promise<SubscriptionListItem[]> {
  const data = parseInput(merchantListSchema, input);
  const rows = await ctx.store.listSubscriptions(merchantId, {
    userId: data.userId,
    status: data.status,
    limit: data.userId !== undefined ? data.limit : (data.limit ?? 100),
  });
  return rows.map((r) => subscriptionListItem(ctx, r, r.planName, r.nextBillingTime));
}

export const BILLING_LIST_REQUEST = z.object({
  subscriptionCode: requiredString(200),
  status: blankAbsent(z.enum(RECORD_STATUSES, { error: `must be one of ${RECORD_STATUSES.join(', ')}` })),
  pageNum: blankAbsent(integerField(1, 1_000_000_000)).default(1),
  pageSize: blankAbsent(integerField(1, 100)).default(10),
});

export interface BillingPage {
  total: number;
  pageNum: number;
  pageSize: number;
  records: BillingRecordView[];
}

/** GET /subscription/billing/list: records newest first, paginated (SPEC §5). */
export async function listBillingRecords(ctx: Ctx, merchantId: string, input: unknown): Promise<BillingPage> {
  const data = parseInput(BILLING_LIST_REQUEST, input);
  const s = await ctx.store.getSubscriptionByCode(merchantId, data.subscriptionCode);
  if (!s) throw notFound('subscription');
  const { pageNum, pageSize } = data;
  const total = await ctx.store.countRecords(s.id, data.status);
  const rows = await ctx.store.pageRecords(s.id, data.status, pageSize, (pageNum - 1) * pageSize);
  return { total, pageNum, pageSize, records: rows.map((r) => billingRecordView(ctx, r, s.code)) };
}
