import { rowsOf } from './rows.js';
import type { Ctx } from '../../src/ctx.js';
import { createPlan } from '../../src/services/plans.js';
import { requireMerchant } from '../../src/services/merchants.js';
import { createTransaction } from '../../src/services/transactions/index.js';
import { cardYear } from './cards.js';
import { testMerchant } from './ctx.js';

let seq = 0;

export interface PlanSpec {
  cycleType?: 'DAILY' | 'WEEKLY' | 'MONTHLY' | 'YEARLY';
  cycleLength?: number;
  price?: string;
  trialDays?: number;
  maxSubscriptions?: number;
}

/** A merchant and a plan on it. */
export async function merchantWithPlan(
  ctx: Ctx,
  plan: PlanSpec = {},
  merchant: Record<string, unknown> = {},
): Promise<{ merchantId: string; planId: string }> {
  const m = await testMerchant(ctx, merchant);
  const p = await createPlan(ctx, m.merchantId, {
    planName: 'Pro',
    price: plan.price ?? '9.99',
    currency: 'USD',
    cycleType: plan.cycleType ?? 'MONTHLY',
    cycleLength: plan.cycleLength ?? 1,
    trialDays: plan.trialDays ?? 0,
    maxSubscriptions: plan.maxSubscriptions ?? 0,
  });
  return { merchantId: m.merchantId, planId: p.planId };
}

/** Subscribe through the payments engineer's real first-charge path (SPEC §5 SUBSCRIPTION). */
export async function subscribe(
  ctx: Ctx,
  merchantId: string,
  planId: string,
  opts: {
    userId?: string;
    card?: string;
    year?: string;
    month?: string;
    notifyUrl?: string;
    couponCode?: string;
    billingAddress?: Record<string, string>;
  } = {},
): Promise<{ subscriptionId: string; subscriptionCode: string; status: number; transactionOrderId: string }> {
  seq++;
  const view = await createTransaction(ctx, await requireMerchant(ctx, merchantId), {
    requestId: `req-${seq}-${Math.random()}`,
    relationId: `rel-${seq}-${Math.random()}`,
    paymentType: 'SUBSCRIPTION',
    planId,
    userId: opts.userId ?? 'user-1',
    ...(opts.notifyUrl ? { notifyUrl: opts.notifyUrl } : {}),
    ...(opts.couponCode ? { couponCode: opts.couponCode } : {}),
    ...(opts.billingAddress ? { billingAddress: JSON.stringify(opts.billingAddress) } : {}),
    cardInfo: JSON.stringify({
      holderName: 'Ada Lovelace',
      cardNumber: opts.card ?? '4242424242424242',
      month: opts.month ?? '12',
      year: opts.year ?? cardYear(ctx.clock.now()),
      cvv: '123',
    }),
  });
  const v = view as unknown as Record<string, unknown>;
  return {
    subscriptionId: String(v.subscriptionId),
    subscriptionCode: String(v.subscriptionCode),
    status: Number(v.status),
    transactionOrderId: String(v.transactionOrderId),
  };
}

export interface RecordRow {
  id: string;
  billing_type: string;
  status: string;
  scheduled_time: number;
  actual_time: number | null;
  retry_count: number;
  cycle_index: number;
  fail_reason: string | null;
  transaction_id: string | null;
  amount: number;
  credit_applied: number;
  plan_id: string | null;
  coupon_code: string | null;
  discount_amount: number;
}

/** Every record of a subscription in creation order (raw rows, for exact checks). */
export async function records(ctx: Ctx, subscriptionId: string): Promise<RecordRow[]> {
  return (await rowsOf(ctx).all(
    'SELECT * FROM billing_records WHERE subscription_id = ? ORDER BY created_at, id',
    subscriptionId,
  )) as RecordRow[];
}

export async function subRow(ctx: Ctx, subscriptionId: string): Promise<Record<string, unknown>> {
  return (await rowsOf(ctx).get('SELECT * FROM subscriptions WHERE id = ?', subscriptionId)) as Record<string, unknown>;
}

export async function planCount(ctx: Ctx, planId: string): Promise<number> {
  return ((await rowsOf(ctx).get('SELECT current_subscriptions AS n FROM plans WHERE id = ?', planId)) as { n: number })
    .n;
}
