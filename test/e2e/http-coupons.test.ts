import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, type Served, type TestMerchant } from '../helpers/serve.js';
import { servedShop, type ServedShop } from '../helpers/served-shop.js';

let srv: Served;
let v1: TestMerchant;
let v2: TestMerchant;
let shop: ServedShop;
let n = 0;

beforeAll(async () => {
  shop = await servedShop({
    merchants: [
      [1, 'V1 Shop'],
      [2, 'V2 Shop'],
    ],
  });
  srv = shop.srv;
  [v1, v2] = shop.merchants as [TestMerchant, TestMerchant];
});
afterAll(() => shop?.stop());

const cardInfo = JSON.stringify({
  holderName: 'Ada',
  cardNumber: '4242424242424242',
  month: '12',
  year: String(new Date().getUTCFullYear() + 2),
  cvv: '123',
});

async function planOf(m: TestMerchant): Promise<string> {
  const plan = await client(srv.url, m).post('/subscription/plan/create', {
    planName: 'Monthly',
    price: '10.00',
    currency: 'USD',
    cycleType: 'MONTHLY',
    cycleLength: 1,
  });
  return plan.body.data.planId as string;
}

function subscribe(base: string, m: TestMerchant, planId: string, extra: Record<string, unknown> = {}) {
  n++;
  return client(base, m).post('/subscription/create', {
    requestId: `c-${n}`,
    relationId: `c-${n}`,
    planId,
    userId: `user-${n}`,
    cardInfo,
    ...extra,
  });
}

describe('coupons over HTTP (happy)', () => {
  it.each([1, 2])('creates, lists and deactivates a coupon with signature v%i', async (version) => {
    const m = version === 1 ? v1 : v2;
    const c = client(srv.url, m);
    const created = await c.post('/coupon/create', { code: `HALF${version}`, percentOff: '50', duration: 'ONCE' });
    expect(created.body).toMatchObject({ rtn_code: '0000', data: { couponCode: `HALF${version}`, percentOff: 50 } });
    const list = await c.get('/coupon/list', {});
    expect(list.body.data.map((x: { couponCode: string }) => x.couponCode)).toContain(`HALF${version}`);
    const off = await c.post('/coupon/deactivate', { code: `HALF${version}` });
    expect(off.body).toMatchObject({ rtn_code: '0000', data: { status: 'INACTIVE' } });
  });

  it('a SUBSCRIPTION with couponCode pays the discounted first charge; the billing record shows the discount', async () => {
    const c = client(srv.url, v2);
    const planId = await planOf(v2);
    await c.post('/coupon/create', { code: 'TWO', amountOff: '2.00', duration: 'REPEATING', cycles: 2 });
    const r = await subscribe(srv.url, v2, planId, { couponCode: 'TWO' });
    expect(r.body.data).toMatchObject({ status: '200000', payAmount: '8.00' });
    const records = await c.get('/subscription/billing/list', { subscriptionCode: r.body.data.subscriptionCode });
    const initial = records.body.data.records.find((x: { billingType: string }) => x.billingType === 'INITIAL');
    expect(initial).toMatchObject({ amount: 8, couponCode: 'TWO', discountAmount: 2 });
  });

  it('POST /subscription/coupon gives a subscription a coupon; its detail shows it', async () => {
    const c = client(srv.url, v1);
    const planId = await planOf(v1);
    const sub = (await subscribe(srv.url, v1, planId)).body.data;
    await c.post('/coupon/create', { code: 'LATER', percentOff: '12.5', duration: 'FOREVER' });
    const r = await c.post('/subscription/coupon', { subscriptionId: sub.subscriptionId, couponCode: 'LATER' });
    expect(r.body).toMatchObject({
      rtn_code: '0000',
      data: { subscriptionId: sub.subscriptionId, couponCode: 'LATER' },
    });
    const pending = await c.get('/subscription/billing/list', {
      subscriptionCode: sub.subscriptionCode,
      status: 'PENDING',
    });
    expect(pending.body.data.records[0]).toMatchObject({ amount: 8.75, discountAmount: 1.25, couponCode: 'LATER' });
  });
});

describe('coupons over HTTP (errors)', () => {
  it('a code the merchant already has is 1005', async () => {
    const c = client(srv.url, v2);
    await c.post('/coupon/create', { code: 'DUP', percentOff: '10', duration: 'ONCE' });
    const again = await c.post('/coupon/create', { code: 'DUP', amountOff: '1', duration: 'ONCE' });
    expect(again.body).toMatchObject({ rtn_code: '1005', success: false });
  });

  it('bad terms are 1001 naming the field', async () => {
    const r = await client(srv.url, v2).post('/coupon/create', { code: 'X', percentOff: '101', duration: 'ONCE' });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ rtn_code: '1001' });
    expect(r.body.rtn_msg).toMatch(/^percentOff/);
  });

  it.each([
    ['unknown', 'NOPE'],
    ['INACTIVE', 'GONE'],
  ])('an %s coupon on a SUBSCRIPTION is 1012 and creates no subscription', async (_, code) => {
    const c = client(srv.url, v2);
    const planId = await planOf(v2);
    await c.post('/coupon/create', { code: 'GONE', percentOff: '10', duration: 'ONCE' });
    await c.post('/coupon/deactivate', { code: 'GONE' });
    const r = await subscribe(srv.url, v2, planId, { couponCode: code });
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({ rtn_code: '1012', success: false });
    const plans = await c.get('/subscription/plan/list', {});
    expect(plans.body.data.find((p: { planId: string }) => p.planId === planId).currentSubscriptions).toBe(0);
  });

  it('a coupon for another plan is 1012 on POST /subscription/coupon and changes nothing', async () => {
    const c = client(srv.url, v1);
    const [a, b] = [await planOf(v1), await planOf(v1)];
    await c.post('/coupon/create', { code: 'ONLYB', percentOff: '10', duration: 'ONCE', planIds: [b] });
    const sub = (await subscribe(srv.url, v1, a)).body.data;
    const r = await c.post('/subscription/coupon', { subscriptionId: sub.subscriptionId, couponCode: 'ONLYB' });
    expect(r.body).toMatchObject({ rtn_code: '1012' });
    expect(
      (await c.get('/coupon/list', {})).body.data.find((x: { couponCode: string }) => x.couponCode === 'ONLYB'),
    ).toMatchObject({ redemptions: 0 });
  });

  it('while a change at period end waits, a plan-restricted coupon is checked for the plan of the next charge', async () => {
    const c = client(srv.url, v2);
    const [a, b] = [await planOf(v2), await planOf(v2)];
    await c.post('/coupon/create', { code: 'WAITA', percentOff: '10', duration: 'ONCE', planIds: [a] });
    await c.post('/coupon/create', { code: 'WAITB', percentOff: '10', duration: 'ONCE', planIds: [b] });
    const sub = (await subscribe(srv.url, v2, a)).body.data;
    const change = await c.post('/subscription/change', {
      subscriptionId: sub.subscriptionId,
      planId: b,
      when: 'PERIOD_END',
    });
    expect(change.body.data).toMatchObject({ result: 'SCHEDULED' });
    const forA = await c.post('/subscription/coupon', { subscriptionId: sub.subscriptionId, couponCode: 'WAITA' });
    expect(forA.body).toMatchObject({ rtn_code: '1012' });
    const forB = await c.post('/subscription/coupon', { subscriptionId: sub.subscriptionId, couponCode: 'WAITB' });
    expect(forB.body).toMatchObject({ rtn_code: '0000', data: { couponCode: 'WAITB' } });
    const coupons = (await c.get('/coupon/list', {})).body.data as { couponCode: string; redemptions: number }[];
    expect(coupons.filter((x) => x.couponCode.startsWith('WAIT')).map((x) => [x.couponCode, x.redemptions])).toEqual(
      expect.arrayContaining([
        ['WAITA', 0],
        ['WAITB', 1],
      ]),
    );
    const pending = await c.get('/subscription/billing/list', {
      subscriptionCode: sub.subscriptionCode,
      status: 'PENDING',
    });
    expect(pending.body.data.records[0]).toMatchObject({ amount: 9, discountAmount: 1, couponCode: 'WAITB' });
  });
});

describe('maxRedemptions under concurrent subscribes', () => {
  let second: Served;
  // Started before the test: a second serve's start-up is not what this test measures.
  beforeAll(async () => {
    second = await shop.serve();
  }, 120_000);

  it('20 subscribes at once through two serve instances take a 5-redemption coupon exactly 5 times', async () => {
    const c = client(srv.url, v2);
    const planId = await planOf(v2);
    await c.post('/coupon/create', { code: 'FIVE', percentOff: '20', duration: 'ONCE', maxRedemptions: 5 });
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => subscribe(i % 2 ? second.url : srv.url, v2, planId, { couponCode: 'FIVE' })),
    );
    const codes = answers.map((a) => a.body.rtn_code);
    expect(codes.filter((x) => x === '0000')).toHaveLength(5);
    expect(codes.filter((x) => x === '1012')).toHaveLength(15);
    const coupon = (await c.get('/coupon/list', {})).body.data.find(
      (x: { couponCode: string }) => x.couponCode === 'FIVE',
    );
    expect(coupon).toMatchObject({ redemptions: 5 });
  });
});
