import { afterEach, describe, expect, it } from 'vitest';
import { type CouponRow, rowOf } from '../../src/store/store.js';
import { testApp, type TestApp } from '../helpers/ctx.js';
import { merchantWithPlan, subscribe } from '../helpers/subscriptions.js';

let app: TestApp;
afterEach(async () => app?.close());

const NOW = 1_800_000_000_000;
let seq = 0;
const coupon = (merchantId: string, over: Partial<CouponRow> = {}): CouponRow =>
  rowOf('coupons', {
    id: `cpn_${++seq}`,
    merchantId,
    code: 'LAUNCH',
    percentBasisPoints: 5000,
    duration: 'REPEATING',
    cycles: 3,
    redemptions: 0,
    status: 'ACTIVE',
    createdAt: NOW + seq,
    ...over,
  });

const reserve = (a: TestApp, id: string, now = NOW): Promise<boolean> =>
  a.ctx.store.transaction((tx) => tx.reserveCouponRedemption(id, now));

describe('the coupons table', () => {
  it('keeps a coupon per merchant by its code; another merchant’s reads as absent', async () => {
    app = await testApp();
    const { merchantId } = await merchantWithPlan(app.ctx);
    const other = await merchantWithPlan(app.ctx);
    const row = coupon(merchantId, { planIds: '["pln_a"]', redeemBy: NOW + 1 });
    await app.ctx.store.transaction((tx) => tx.insertCoupon(row));
    expect(await app.ctx.store.getCoupon(merchantId, 'LAUNCH')).toEqual(row);
    expect(await app.ctx.store.getCoupon(other.merchantId, 'LAUNCH')).toBeUndefined();
  });

  it('lists a merchant’s coupons newest first', async () => {
    app = await testApp();
    const { merchantId } = await merchantWithPlan(app.ctx);
    const a = coupon(merchantId, { code: 'A' });
    const b = coupon(merchantId, { code: 'B' });
    await app.ctx.store.transaction(async (tx) => {
      await tx.insertCoupon(a);
      await tx.insertCoupon(b);
    });
    expect((await app.ctx.store.listCoupons(merchantId)).map((c) => c.code)).toEqual(['B', 'A']);
  });

  it('refuses a second coupon with the same code for the same merchant', async () => {
    app = await testApp();
    const { merchantId } = await merchantWithPlan(app.ctx);
    await app.ctx.store.transaction((tx) => tx.insertCoupon(coupon(merchantId)));
    await expect(app.ctx.store.transaction((tx) => tx.insertCoupon(coupon(merchantId)))).rejects.toThrow();
    expect(await app.ctx.store.listCoupons(merchantId)).toHaveLength(1);
  });

  it('counts a redemption only of an ACTIVE coupon, not past its redeem-by time, below its maximum', async () => {
    app = await testApp();
    const { merchantId } = await merchantWithPlan(app.ctx);
    const limited = coupon(merchantId, { code: 'ONE', maxRedemptions: 1, redeemBy: NOW });
    await app.ctx.store.transaction((tx) => tx.insertCoupon(limited));
    expect(await reserve(app, limited.id, NOW + 1)).toBe(false);
    expect(await reserve(app, limited.id, NOW)).toBe(true);
    expect(await reserve(app, limited.id, NOW)).toBe(false);
    const inactive = coupon(merchantId, { code: 'OFF' });
    await app.ctx.store.transaction((tx) => tx.insertCoupon(inactive));
    await app.ctx.store.transaction((tx) => tx.setCouponStatus(inactive.id, 'INACTIVE'));
    expect(await reserve(app, inactive.id)).toBe(false);
    expect((await app.ctx.store.getCoupon(merchantId, 'ONE'))?.redemptions).toBe(1);
    expect((await app.ctx.store.getCoupon(merchantId, 'OFF'))?.redemptions).toBe(0);
  });

  it('never counts more than maxRedemptions under 30 concurrent units of work', async () => {
    app = await testApp();
    const { merchantId } = await merchantWithPlan(app.ctx);
    const row = coupon(merchantId, { maxRedemptions: 7 });
    await app.ctx.store.transaction((tx) => tx.insertCoupon(row));
    const taken = await Promise.all(Array.from({ length: 30 }, () => reserve(app, row.id)));
    expect(taken.filter(Boolean)).toHaveLength(7);
    expect((await app.ctx.store.getCoupon(merchantId, 'LAUNCH'))?.redemptions).toBe(7);
  });

  it('starts a subscription with no coupon and its records with no discount', async () => {
    app = await testApp();
    const { merchantId, planId } = await merchantWithPlan(app.ctx);
    const { subscriptionId } = await subscribe(app.ctx, merchantId, planId);
    const s = await app.ctx.store.getSubscription(merchantId, subscriptionId);
    expect(s).toMatchObject({ couponId: null, couponCode: null, couponTakenAt: null, couponCyclesUsed: 0 });
    const first = await app.ctx.store.latestCalendarRecord(subscriptionId);
    expect(first).toMatchObject({ couponCode: null, discountAmount: 0 });
  });
});
