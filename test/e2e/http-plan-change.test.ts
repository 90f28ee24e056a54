import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, type Served, type TestMerchant } from '../helpers/serve.js';
import { servedShop, type ServedShop } from '../helpers/served-shop.js';

let srv: Served;
let merchant: TestMerchant;
let shop: ServedShop;
let n = 0;

beforeAll(async () => {
  shop = await servedShop({ merchants: [[2, 'Change Shop']] });
  srv = shop.srv;
  [merchant] = shop.merchants as [TestMerchant];
});
afterAll(() => shop?.stop());

const card = (cardNumber = '4242424242424242') =>
  JSON.stringify({
    holderName: 'Ada',
    cardNumber,
    month: '12',
    year: String(new Date().getUTCFullYear() + 2),
    cvv: '123',
  });

async function plan(price: string, maxSubscriptions = 0): Promise<string> {
  const r = await client(srv.url, merchant).post('/subscription/plan/create', {
    planName: `P ${price}`,
    price,
    currency: 'USD',
    cycleType: 'MONTHLY',
    cycleLength: 1,
    maxSubscriptions,
  });
  return r.body.data.planId as string;
}

async function subscribe(
  planId: string,
  cardNumber?: string,
): Promise<{ subscriptionId: string; subscriptionCode: string }> {
  n++;
  const r = await client(srv.url, merchant).post('/subscription/create', {
    requestId: `c-${n}`,
    relationId: `c-${n}`,
    planId,
    userId: `u-${n}`,
    cardInfo: card(cardNumber),
  });
  expect(r.body.rtn_code).toBe('0000');
  return r.body.data;
}

describe('POST /subscription/change', () => {
  it('NOW charges a CHANGE record at once and the new plan is in force; the billing list shows it', async () => {
    const basic = await plan('10.00');
    const pro = await plan('30.00');
    const sub = await subscribe(basic);
    const c = client(srv.url, merchant);
    const r = await c.post('/subscription/change', { subscriptionId: sub.subscriptionId, planId: pro, when: 'NOW' });
    expect(r.body).toMatchObject({
      rtn_code: '0000',
      success: true,
      data: { result: 'CHANGED', when: 'NOW', planId: pro, creditBalance: 0 },
    });
    // Changed the moment it was paid for: (almost) the whole period is credited.
    expect(r.body.data.credit).toBeGreaterThan(9.9);
    expect(r.body.data.record).toMatchObject({ billingType: 'CHANGE', status: 'SUCCESS' });
    expect(r.body.data.record.amount).toBeCloseTo(30 - r.body.data.credit, 2);
    const detail = await c.get('/subscription/detail', { subscriptionId: sub.subscriptionId });
    expect(detail.body.data).toMatchObject({ planId: pro, amount: 30 });
    const bills = await c.get('/subscription/billing/list', { subscriptionCode: sub.subscriptionCode });
    expect(bills.body.data.records.map((x: { billingType: string }) => x.billingType)).toContain('CHANGE');
  });

  it('PERIOD_END (the default) schedules it; a full target plan is 422 1009; a cancelled subscription 409 1008', async () => {
    const basic = await plan('5.00');
    const full = await plan('8.00', 1);
    await subscribe(full);
    const sub = await subscribe(basic);
    const c = client(srv.url, merchant);
    const refused = await c.post('/subscription/change', { subscriptionId: sub.subscriptionId, planId: full });
    expect([refused.status, refused.body.rtn_code]).toEqual([422, '1009']);
    const gold = await plan('12.00');
    const r = await c.post('/subscription/change', { subscriptionId: sub.subscriptionId, planId: gold });
    expect(r.body.data).toMatchObject({
      result: 'SCHEDULED',
      when: 'PERIOD_END',
      planId: basic,
      pendingPlanId: gold,
      credit: 0,
    });
    const bad = await c.post('/subscription/change', {
      subscriptionId: sub.subscriptionId,
      planId: gold,
      when: 'LATER',
    });
    expect([bad.status, bad.body.rtn_code]).toEqual([400, '1001']);
    expect(bad.body.rtn_msg).toContain('when');
    await c.post('/subscription/cancel', { subscriptionId: sub.subscriptionId });
    const after = await c.post('/subscription/change', {
      subscriptionId: sub.subscriptionId,
      planId: gold,
      when: 'NOW',
    });
    expect([after.status, after.body.rtn_code]).toEqual([409, '1008']);
  });
});

describe('paygate sub change', () => {
  it('--now changes at once; without it the renewal run (renew --at) moves the subscription at period end', async () => {
    const basic = await plan('10.00');
    const pro = await plan('20.00');
    const max = await plan('40.00');
    const one = await subscribe(basic);
    const now = shop.cli(['--json', 'sub', 'change', one.subscriptionCode, '--plan', pro, '--now']);
    expect(now.status).toBe(0);
    expect(now.json()).toMatchObject({ result: 'CHANGED', planId: pro });
    const two = await subscribe(basic);
    const later = shop.cli(['--json', 'sub', 'change', two.subscriptionId, '--plan', max]);
    expect(later.json()).toMatchObject({ result: 'SCHEDULED', pendingPlanId: max });
    const next = later.json().nextBillingTime as string;
    const run = shop.cli(['--json', 'renew', '--at', next]);
    expect(run.status).toBe(0);
    const shown = shop.cli(['--json', 'sub', 'show', two.subscriptionId]).json();
    expect(shown).toMatchObject({ planId: max, amount: '40.00', billingCount: 2 });
    const unknown = shop.cli(['sub', 'change', two.subscriptionId, '--plan', 'pln_nope']);
    expect(unknown.status).toBe(1);
    expect(unknown.stderr.trim()).toBe('error 1007: plan not found');
  });
});
