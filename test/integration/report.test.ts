import { afterEach, describe, expect, it } from 'vitest';
import { createPlan } from '../../src/services/plans.js';
import { requireMerchant } from '../../src/services/merchants.js';
import { refundTransaction } from '../../src/services/refund.js';
import { runRenewal } from '../../src/services/renew/index.js';
import { revenueReport } from '../../src/services/report.js';
import { cancelSubscription, pauseSubscription, updateSubscription } from '../../src/services/subscriptions/index.js';
import { testApp, type TestApp } from '../helpers/ctx.js';
import { merchantWithPlan, records, subscribe } from '../helpers/subscriptions.js';

let app: TestApp;
afterEach(() => app?.close());

const at = (month: number, day: number, hour = 9, second = 0): number =>
  Date.UTC(2026, month - 1, day, hour, 0, second);

/**
 * A small shop's first quarter, every figure known by hand:
 *  Jan 10  A (4242) and B (…0036: each renewal's first attempt declines, its retry succeeds) subscribe, 10.00 monthly
 *  Jan 20  C (4242) monthly; D (…0002) declined at once → EXPIRED; E yearly 120.00
 *  Feb 10  renewals: A paid, B declined (a retry is scheduled)
 *  Feb 11  B's retry paid (recovered)
 *  Feb 20  C paid
 *  Mar  5  A cancelled; 5.00 of C's February charge refunded
 */
async function firstQuarter(): Promise<{ merchantId: string }> {
  app = await testApp({ now: at(1, 10) });
  const { ctx, clock } = app;
  const { merchantId, planId } = await merchantWithPlan(ctx, { price: '10.00' });
  const yearly = await createPlan(ctx, merchantId, {
    planName: 'Year',
    price: '120.00',
    currency: 'USD',
    cycleType: 'YEARLY',
    cycleLength: 1,
    trialDays: 0,
    maxSubscriptions: 0,
  });
  const a = await subscribe(ctx, merchantId, planId, { userId: 'a' });
  await subscribe(ctx, merchantId, planId, { userId: 'b', card: '4000000000000036' });
  clock.set(at(1, 20));
  const c = await subscribe(ctx, merchantId, planId, { userId: 'c' });
  await subscribe(ctx, merchantId, planId, { userId: 'd', card: '4000000000000002' });
  await subscribe(ctx, merchantId, yearly.planId, { userId: 'e' });
  clock.set(at(2, 10, 9, 1));
  await runRenewal(ctx);
  clock.set(at(2, 11, 9, 1));
  await runRenewal(ctx);
  clock.set(at(2, 20, 9, 1));
  await runRenewal(ctx);
  clock.set(at(3, 5));
  await cancelSubscription(ctx, merchantId, { subscriptionId: a.subscriptionId });
  const cFeb = (await records(ctx, c.subscriptionId)).find((r) => r.billing_type === 'RENEW' && r.status === 'SUCCESS');
  await refundTransaction(ctx, await requireMerchant(ctx, merchantId), {
    transactionOrderId: cFeb?.transaction_id,
    refundAmount: '5.00',
  });
  return { merchantId };
}

describe('revenue report', () => {
  it('counts new, churned and active subscriptions, MRR, charges, refunds, failed attempts and recoveries per month', async () => {
    const { merchantId } = await firstQuarter();
    const r = await revenueReport(app.ctx, { merchantId, from: '2026-01', to: '2026-03' });
    expect(r.months).toEqual([
      {
        month: '2026-01',
        newSubscriptions: 5,
        churned: 1,
        active: 4,
        mrr: 4000,
        charged: 15000,
        refunded: 0,
        failedAttempts: 0,
        recovered: 0,
      },
      {
        month: '2026-02',
        newSubscriptions: 0,
        churned: 0,
        active: 4,
        mrr: 4000,
        charged: 3000,
        refunded: 0,
        failedAttempts: 1,
        recovered: 1,
      },
      {
        month: '2026-03',
        newSubscriptions: 0,
        churned: 1,
        active: 3,
        mrr: 3000,
        charged: 0,
        refunded: 500,
        failedAttempts: 0,
        recovered: 0,
      },
    ]);
    expect(r).toMatchObject({ merchantId, currency: 'USD', zone: 'UTC' });
  });

  it('a paused subscription stops counting at its pause, whatever is changed on it later', async () => {
    app = await testApp({ now: at(1, 10) });
    const { ctx, clock } = app;
    const { merchantId, planId } = await merchantWithPlan(ctx, { price: '10.00' });
    const { subscriptionId } = await subscribe(ctx, merchantId, planId);
    clock.set(at(2, 5));
    await pauseSubscription(ctx, merchantId, { subscriptionId });
    const active = async () =>
      (await revenueReport(ctx, { merchantId, from: '2026-01', to: '2026-05' })).months.map((m) => m.active);
    clock.set(at(4, 15));
    expect(await active()).toEqual([1, 0, 0, 0, 0]);
    // A new email address in April (`sub update --email`) is not a pause in April.
    await updateSubscription(ctx, merchantId, { subscriptionId, email: 'ada@example.com' });
    clock.set(at(5, 20));
    expect(await active()).toEqual([1, 0, 0, 0, 0]);
  });

  it('puts a month boundary at midnight in the database’s zone', async () => {
    app = await testApp({ now: at(1, 31, 23), zone: 'Asia/Tokyo' }); // 2026-02-01 08:00 in Tokyo
    const { merchantId, planId } = await merchantWithPlan(app.ctx, { price: '10.00' });
    await subscribe(app.ctx, merchantId, planId);
    const r = await revenueReport(app.ctx, { merchantId, from: '2026-01', to: '2026-02' });
    expect(r.months.map((m) => m.newSubscriptions)).toEqual([0, 1]);
  });

  it('covers the last twelve months by default and every merchant without --merchant', async () => {
    await firstQuarter();
    const r = await revenueReport(app.ctx, {});
    expect(r.months).toHaveLength(12);
    expect(r.months[11]?.month).toBe('2026-03');
    expect(r.months[0]?.month).toBe('2025-04');
    expect(r.merchantId).toBeUndefined();
  });

  it('refuses a month not written yyyy-MM, a range backwards, more than ten years, or an unknown merchant', async () => {
    app = await testApp();
    await expect(revenueReport(app.ctx, { from: '2026-1' })).rejects.toMatchObject({ code: '1001', field: 'from' });
    await expect(revenueReport(app.ctx, { from: '2026-05', to: '2026-04' })).rejects.toMatchObject({ code: '1001' });
    await expect(revenueReport(app.ctx, { from: '2000-01', to: '2026-04' })).rejects.toMatchObject({ code: '1001' });
    await expect(revenueReport(app.ctx, { merchantId: 'mer_nope' })).rejects.toMatchObject({ code: '1007' });
  });
});
