import { afterEach, describe, expect, it } from 'vitest';
import { isPaygateError } from '../../src/domain/errors.js';
import { parseTime } from '../../src/domain/time.js';
import { createCoupon, deactivateCoupon, showCoupon } from '../../src/services/coupons.js';
import { createPlan } from '../../src/services/plans.js';
import { runRenewal } from '../../src/services/renew/index.js';
import { cancelSubscription, pauseSubscription, resumeSubscription } from '../../src/services/subscriptions/index.js';
import { takeCoupon } from '../../src/services/take-coupon.js';
import { testApp, type TestApp } from '../helpers/ctx.js';
import { merchantWithPlan, planCount, records, subRow, subscribe } from '../helpers/subscriptions.js';

let app: TestApp;
afterEach(async () => app?.close());
const t = (s: string): number => parseTime(s, 'UTC');

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'accepted';
  } catch (e) {
    if (isPaygateError(e)) return e.code;
    throw e;
  }
}

describe('taking a coupon', () => {
  it('maxRedemptions holds under 30 concurrent subscribes: exactly 5 take it, the others are 1012 with nothing created', async () => {
    app = await testApp();
    const { merchantId, planId } = await merchantWithPlan(app.ctx);
    await createCoupon(app.ctx, merchantId, { code: 'FIVE', percentOff: '10', duration: 'ONCE', maxRedemptions: 5 });
    const codes = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        codeOf(subscribe(app.ctx, merchantId, planId, { userId: `u${i}`, couponCode: 'FIVE' })),
      ),
    );
    expect(codes.filter((c) => c === 'accepted')).toHaveLength(5);
    expect(codes.filter((c) => c === '1012')).toHaveLength(25);
    expect((await showCoupon(app.ctx, merchantId, 'FIVE')).redemptions).toBe(5);
    expect(await planCount(app.ctx, planId)).toBe(5);
  });

  it.each([
    ['unknown', 'NOPE', 'is not a coupon of this merchant'],
    ['INACTIVE', 'OFF', 'is inactive'],
    ['expired', 'OLD', 'is past its redeem-by time'],
    ['not for this plan', 'OTHER', 'is not for this plan'],
  ])('an %s code is 1012 and the subscription keeps what it had', async (_, code, reason) => {
    app = await testApp({ now: t('2026-01-15 09:00:00') });
    const { merchantId, planId } = await merchantWithPlan(app.ctx, { price: '10.00' });
    const other = await createPlan(app.ctx, merchantId, {
      planName: 'Other',
      price: '5.00',
      currency: 'USD',
      cycleType: 'MONTHLY',
      cycleLength: 1,
      trialDays: 0,
      maxSubscriptions: 0,
    });
    await createCoupon(app.ctx, merchantId, { code: 'OFF', percentOff: '10', duration: 'ONCE' });
    await deactivateCoupon(app.ctx, merchantId, 'OFF');
    await createCoupon(app.ctx, merchantId, {
      code: 'OLD',
      percentOff: '10',
      duration: 'ONCE',
      redeemBy: '2026-01-01 00:00:00',
    });
    await createCoupon(app.ctx, merchantId, {
      code: 'OTHER',
      percentOff: '10',
      duration: 'ONCE',
      planIds: [other.planId],
    });
    await createCoupon(app.ctx, merchantId, { code: 'HELD', amountOff: '1', duration: 'FOREVER' });
    const sub = await subscribe(app.ctx, merchantId, planId, { couponCode: 'HELD' });
    const before = await records(app.ctx, sub.subscriptionId);
    await expect(
      takeCoupon(app.ctx, merchantId, { subscriptionId: sub.subscriptionId, couponCode: code }),
    ).rejects.toMatchObject({
      code: '1012',
      message: `couponCode: ${code} ${reason}`,
    });
    expect(await subRow(app.ctx, sub.subscriptionId)).toMatchObject({ coupon_code: 'HELD' });
    expect(await records(app.ctx, sub.subscriptionId)).toEqual(before);
  });

  it('a subscription whose first charge is declined gives its redemption back', async () => {
    app = await testApp();
    const { merchantId, planId } = await merchantWithPlan(app.ctx);
    await createCoupon(app.ctx, merchantId, { code: 'ONE', percentOff: '10', duration: 'ONCE', maxRedemptions: 1 });
    const declined = await subscribe(app.ctx, merchantId, planId, { couponCode: 'ONE', card: '4000000000000002' });
    expect(declined.status).toBe(300000);
    expect((await showCoupon(app.ctx, merchantId, 'ONE')).redemptions).toBe(0);
    expect((await subscribe(app.ctx, merchantId, planId, { couponCode: 'ONE' })).status).toBe(200000);
  });

  it('a subscription cancelled while its first charge waits for 3DS gives its redemption back', async () => {
    app = await testApp();
    const { merchantId, planId } = await merchantWithPlan(app.ctx);
    await createCoupon(app.ctx, merchantId, { code: 'ONE', percentOff: '10', duration: 'ONCE', maxRedemptions: 1 });
    const waiting = await subscribe(app.ctx, merchantId, planId, { couponCode: 'ONE', card: '4000000000003220' });
    expect(waiting.status).toBe(100040);
    expect((await showCoupon(app.ctx, merchantId, 'ONE')).redemptions).toBe(1);
    await cancelSubscription(app.ctx, merchantId, waiting.subscriptionId);
    expect((await subRow(app.ctx, waiting.subscriptionId)).status).toBe('CANCELLED');
    expect((await showCoupon(app.ctx, merchantId, 'ONE')).redemptions).toBe(0);
    expect((await subscribe(app.ctx, merchantId, planId, { couponCode: 'ONE' })).status).toBe(200000);
  });

  it('a RETRY never spends a coupon taken after its RENEW, even the same code again', async () => {
    app = await testApp({ now: t('2026-01-15 09:00:00') });
    const { merchantId, planId } = await merchantWithPlan(app.ctx, { price: '10.00' });
    await createCoupon(app.ctx, merchantId, { code: 'TWO', amountOff: '2', duration: 'REPEATING', cycles: 2 });
    const sub = await subscribe(app.ctx, merchantId, planId, { couponCode: 'TWO', card: '4000000000000036' });
    app.clock.set(t('2026-02-15 09:00:00'));
    await runRenewal(app.ctx);
    app.clock.set(t('2026-02-15 12:00:00'));
    await takeCoupon(app.ctx, merchantId, { subscriptionId: sub.subscriptionId, couponCode: 'TWO' });
    app.clock.set(t('2026-02-16 09:00:00'));
    await runRenewal(app.ctx);
    const recs = await records(app.ctx, sub.subscriptionId);
    expect(recs.map((r) => [r.billing_type, r.status, r.amount, r.discount_amount])).toEqual([
      ['INITIAL', 'SUCCESS', 800, 200],
      ['RENEW', 'FAILED', 800, 200],
      ['RETRY', 'SUCCESS', 800, 200],
      ['RENEW', 'PENDING', 800, 200],
    ]);
    expect(await subRow(app.ctx, sub.subscriptionId)).toMatchObject({ coupon_cycles_used: 0 });
  });

  it('a renewal cancelled by a pause spends nothing: the coupon discounts the renewal after the resume', async () => {
    app = await testApp({ now: t('2026-01-15 09:00:00') });
    const { merchantId, planId } = await merchantWithPlan(app.ctx, { price: '10.00' });
    const sub = await subscribe(app.ctx, merchantId, planId);
    await createCoupon(app.ctx, merchantId, { code: 'ONCE', amountOff: '4', duration: 'ONCE' });
    await takeCoupon(app.ctx, merchantId, { subscriptionId: sub.subscriptionId, couponCode: 'ONCE' });
    await pauseSubscription(app.ctx, merchantId, sub.subscriptionId);
    await resumeSubscription(app.ctx, merchantId, sub.subscriptionId);
    const recs = await records(app.ctx, sub.subscriptionId);
    expect(recs.map((r) => [r.billing_type, r.status, r.amount, r.discount_amount])).toEqual([
      ['INITIAL', 'SUCCESS', 1000, 0],
      ['RENEW', 'CANCELLED', 600, 400],
      ['RENEW', 'PENDING', 600, 400],
    ]);
  });
});
