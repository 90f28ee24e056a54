import { afterEach, describe, expect, it } from 'vitest';
import { isPaygateError } from '../../src/domain/errors.js';
import { createCoupon, deactivateCoupon, listCoupons, showCoupon } from '../../src/services/coupons.js';
import { testApp, type TestApp } from '../helpers/ctx.js';
import { merchantWithPlan } from '../helpers/subscriptions.js';

let app: TestApp;
afterEach(async () => app?.close());

async function refusal(p: Promise<unknown>): Promise<[string, string]> {
  try {
    await p;
  } catch (e) {
    if (isPaygateError(e)) return [e.code, e.message];
    throw e;
  }
  return ['accepted', ''];
}

describe('coupons of a merchant', () => {
  it('creates a percent-off REPEATING coupon restricted to a plan, with its redeem-by time', async () => {
    app = await testApp();
    const { merchantId, planId } = await merchantWithPlan(app.ctx);
    const c = await createCoupon(app.ctx, merchantId, {
      code: 'HALF3',
      percentOff: '50',
      duration: 'REPEATING',
      cycles: 3,
      redeemBy: '2030-01-31 23:59:59',
      maxRedemptions: 100,
      planIds: [planId],
    });
    expect(c).toMatchObject({
      couponCode: 'HALF3',
      percentOff: 50,
      duration: 'REPEATING',
      cycles: 3,
      redeemBy: '2030-01-31 23:59:59',
      maxRedemptions: 100,
      redemptions: 0,
      planIds: [planId],
      status: 'ACTIVE',
    });
    expect(await showCoupon(app.ctx, merchantId, 'HALF3')).toEqual(c);
  });

  it('creates an amount-off FOREVER coupon in USD for every plan', async () => {
    app = await testApp();
    const { merchantId } = await merchantWithPlan(app.ctx);
    const c = await createCoupon(app.ctx, merchantId, { code: 'LOYAL', amountOff: '2.50', duration: 'FOREVER' });
    expect(c).toMatchObject({ amountOff: 2.5, currency: 'USD', duration: 'FOREVER', planIds: [] });
    expect(c).not.toHaveProperty('cycles');
  });

  it('refuses a code the merchant already has with 1005, and takes it for another merchant', async () => {
    app = await testApp();
    const a = await merchantWithPlan(app.ctx);
    const b = await merchantWithPlan(app.ctx);
    await createCoupon(app.ctx, a.merchantId, { code: 'X', percentOff: '10', duration: 'ONCE' });
    expect(
      (await refusal(createCoupon(app.ctx, a.merchantId, { code: 'X', percentOff: '20', duration: 'ONCE' })))[0],
    ).toBe('1005');
    await createCoupon(app.ctx, b.merchantId, { code: 'X', percentOff: '20', duration: 'ONCE' });
    expect((await showCoupon(app.ctx, a.merchantId, 'X')).percentOff).toBe(10);
  });

  it('refuses a plan of another merchant with 1007 and writes nothing', async () => {
    app = await testApp();
    const a = await merchantWithPlan(app.ctx);
    const b = await merchantWithPlan(app.ctx);
    const r = await refusal(
      createCoupon(app.ctx, a.merchantId, { code: 'P', percentOff: '10', duration: 'ONCE', planIds: [b.planId] }),
    );
    expect(r[0]).toBe('1007');
    expect(await listCoupons(app.ctx, a.merchantId)).toEqual([]);
  });

  it.each([
    [{ code: 'bad code', percentOff: '10', duration: 'ONCE' }, 'code:'],
    [{ code: 'C', percentOff: '10', duration: 'REPEATING', cycles: 0 }, 'cycles:'],
    [{ code: 'C', percentOff: '10', duration: 'REPEATING', cycles: 121 }, 'cycles:'],
    [{ code: 'C', percentOff: '10', duration: 'ONCE', redeemBy: 'tomorrow' }, 'redeemBy:'],
    [{ code: 'C', percentOff: '10', amountOff: '1.00', duration: 'ONCE' }, 'percentOff:'],
  ])('refuses bad terms with 1001 naming the field (%o)', async (input, field) => {
    app = await testApp();
    const { merchantId } = await merchantWithPlan(app.ctx);
    const [code, message] = await refusal(createCoupon(app.ctx, merchantId, input));
    expect(code).toBe('1001');
    expect(message.startsWith(field)).toBe(true);
  });

  it('deactivates for good: INACTIVE, listed, a second deactivate is 1008, an unknown code 1007', async () => {
    app = await testApp();
    const { merchantId } = await merchantWithPlan(app.ctx);
    await createCoupon(app.ctx, merchantId, { code: 'GONE', percentOff: '10', duration: 'ONCE' });
    expect((await deactivateCoupon(app.ctx, merchantId, 'GONE')).status).toBe('INACTIVE');
    expect((await listCoupons(app.ctx, merchantId)).map((c) => [c.couponCode, c.status])).toEqual([
      ['GONE', 'INACTIVE'],
    ]);
    expect((await refusal(deactivateCoupon(app.ctx, merchantId, 'GONE')))[0]).toBe('1008');
    expect((await refusal(deactivateCoupon(app.ctx, merchantId, 'NOPE')))[0]).toBe('1007');
  });
});
