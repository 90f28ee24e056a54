import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paygateAsync } from '../helpers/cli-async.js';
import { client } from '../helpers/serve.js';
import { type StripeShop, stripeShop } from '../helpers/stripe-shop.js';

/** Coupons on a Stripe merchant: the discounted amount is what Stripe is asked for; a zero charge asks Stripe nothing. */
let shop: StripeShop;
beforeAll(async () => {
  shop = await stripeShop({ prefix: 'paygate-stripe-coupons-', name: 'Stripe Coupons' });
}, 120_000);
afterAll(() => shop?.stop());

const YEAR = String(new Date().getUTCFullYear() + 2);
const inDays = (d: number) => DateTime.utc().plus({ days: d }).toFormat('yyyy-MM-dd HH:mm:ss');
const renew = async (days: number) => {
  const r = await paygateAsync(['--db', shop.db, '--json', 'renew', '--at', inDays(days)], shop.env);
  expect(r.status, r.stderr).toBe(0);
};

describe("a Stripe merchant's coupons", () => {
  let subId = '';

  it('the first charge and the renewal are sent to Stripe less the discount', async () => {
    const c = client(shop.srv.url, shop.m);
    const plan = await c.post('/subscription/plan/create', {
      planName: 'Monthly',
      price: '9.99',
      currency: 'USD',
      cycleType: 'MONTHLY',
      cycleLength: 1,
    });
    await c.post('/coupon/create', { code: 'HALF2', percentOff: '50', duration: 'REPEATING', cycles: 2 });
    const r = await c.post('/subscription/create', {
      requestId: 'sc-1',
      relationId: 'sc-1',
      planId: plan.body.data.planId,
      userId: 'u-1',
      couponCode: 'HALF2',
      cardInfo: JSON.stringify({
        holderName: 'Ada',
        cardNumber: '4242424242424242',
        month: '12',
        year: YEAR,
        cvv: '123',
      }),
    });
    expect(r.body.data).toMatchObject({ status: '200000', payAmount: '4.99' });
    subId = r.body.data.subscriptionId;
    await renew(32);
    const amounts = [...shop.acct.state.intents.values()].map((i) => i.amount);
    expect(amounts).toEqual([499, 499]);
  });

  it('a renewal a 100% coupon brings to zero is recorded SUCCESS without a call to Stripe', async () => {
    const c = client(shop.srv.url, shop.m);
    await c.post('/coupon/create', { code: 'FREE', percentOff: '100', duration: 'ONCE' });
    const taken = await c.post('/subscription/coupon', { subscriptionId: subId, couponCode: 'FREE' });
    expect(taken.body.rtn_code).toBe('0000');
    const before = shop.stripe.requests.length;
    await renew(63);
    expect(shop.stripe.requests.length).toBe(before);
    const recs = await shop.rows.all<{ status: string; amount: number; discount_amount: number }>(
      "SELECT status, amount, discount_amount FROM billing_records WHERE subscription_id = ? AND coupon_code = 'FREE'",
      subId,
    );
    expect(recs).toEqual([{ status: 'SUCCESS', amount: 0, discount_amount: 999 }]);
  });
});
