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

const card = (cardNumber = '4242424242424242') =>
  JSON.stringify({
    holderName: 'Ada',
    cardNumber,
    month: '12',
    year: String(new Date().getUTCFullYear() + 2),
    cvv: '123',
  });

async function subscribe(m: TestMerchant, userId = 'user-1', cardNumber?: string) {
  const c = client(srv.url, m);
  const plan = await c.post('/subscription/plan/create', {
    planName: 'Monthly',
    price: '4.99',
    currency: 'USD',
    cycleType: 'MONTHLY',
    cycleLength: 1,
  });
  n++;
  const r = await c.post('/subscription/create', {
    requestId: `s-${n}`,
    relationId: `s-${n}`,
    planId: plan.body.data.planId,
    userId,
    cardInfo: card(cardNumber),
  });
  expect(r.body.rtn_code).toBe('0000');
  return {
    c,
    planId: plan.body.data.planId as string,
    sub: r.body.data as { subscriptionId: string; subscriptionCode: string; status: string },
  };
}

describe('subscriptions over HTTP (happy)', () => {
  it.each([1, 2])('detail, user list and billing list with signature v%i; amounts are numbers', async (version) => {
    const m = version === 1 ? v1 : v2;
    const { c, sub } = await subscribe(m, `user-v${version}`);
    const detail = await c.get('/subscription/detail', { subscriptionId: sub.subscriptionId });
    expect(detail.body).toMatchObject({ rtn_code: '0000', success: true });
    expect(detail.body.data).toMatchObject({
      subscriptionId: sub.subscriptionId,
      status: 'ACTIVE',
      amount: 4.99,
      currency: 'USD',
      cycleType: 'MONTHLY',
    });
    expect(detail.body.data).not.toHaveProperty('cancelTime');
    expect(detail.text).not.toContain('null');
    const list = await c.get('/subscription/user/list', { userId: `user-v${version}` });
    expect(list.body.data.map((s: { subscriptionId: string }) => s.subscriptionId)).toEqual([sub.subscriptionId]);
    const bills = await c.get('/subscription/billing/list', { subscriptionCode: sub.subscriptionCode, pageSize: '5' });
    expect(bills.body.rtn_code).toBe('0000');
    expect(JSON.stringify(bills.body.data)).toContain('INITIAL');
  });

  it('pause → resume → cancel answer data:true; the same state again is 409 1008 data:false', async () => {
    const { c, sub } = await subscribe(v2, 'user-p');
    const id = { subscriptionId: sub.subscriptionId };
    expect((await c.post('/subscription/pause', id)).body).toEqual({
      rtn_code: '0000',
      rtn_msg: 'success',
      success: true,
      data: true,
    });
    const again = await c.post('/subscription/pause', id);
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ rtn_code: '1008', success: false, data: false });
    expect((await c.post('/subscription/resume', id)).body.data).toBe(true);
    const resumeAgain = await c.post('/subscription/resume', id);
    expect([resumeAgain.status, resumeAgain.body.rtn_code, resumeAgain.body.data]).toEqual([409, '1008', false]);
    expect((await c.post('/subscription/cancel', id)).body.data).toBe(true);
    const pauseCancelled = await c.post('/subscription/pause', id);
    expect([pauseCancelled.status, pauseCancelled.body.rtn_code, pauseCancelled.body.data]).toEqual([
      409,
      '1008',
      false,
    ]);
  });
});

describe('subscriptions over HTTP (errors)', () => {
  it('unknown and foreign subscriptions are 404 1007 with data:false on transitions', async () => {
    const { sub } = await subscribe(v1, 'user-foreign');
    const other = client(srv.url, v2);
    for (const verb of ['pause', 'resume', 'cancel']) {
      const r = await other.post(`/subscription/${verb}`, { subscriptionId: sub.subscriptionId });
      expect([r.status, r.body.rtn_code, r.body.data]).toEqual([404, '1007', false]);
    }
    const d = await other.get('/subscription/detail', { subscriptionId: sub.subscriptionId });
    expect([d.status, d.body.rtn_code]).toEqual([404, '1007']);
    expect(d.body).not.toHaveProperty('data');
    const b = await other.get('/subscription/billing/list', { subscriptionCode: sub.subscriptionCode });
    expect([b.status, b.body.rtn_code]).toEqual([404, '1007']);
  });

  it('subscription/update sets the email with v1 and v2 signatures; a foreign subscription is 404 1007; a bad address 1001', async () => {
    for (const m of [v1, v2]) {
      const { c, sub } = await subscribe(m, `user-mail-${m.signatureVersion}`);
      const r = await c.post('/subscription/update', { subscriptionId: sub.subscriptionId, email: 'ada@example.com' });
      expect([r.status, r.body.rtn_code, r.body.data.email]).toEqual([200, '0000', 'ada@example.com']);
      const d = await c.get('/subscription/detail', { subscriptionId: sub.subscriptionId });
      expect(d.body.data.email).toBe('ada@example.com');
      const bad = await c.post('/subscription/update', {
        subscriptionId: sub.subscriptionId,
        email: 'ada@example.com, eve@evil.test',
      });
      expect(bad.body.rtn_code).toBe('1001');
      const other = client(srv.url, m === v1 ? v2 : v1);
      const foreign = await other.post('/subscription/update', {
        subscriptionId: sub.subscriptionId,
        email: 'eve@evil.test',
      });
      expect([foreign.status, foreign.body.rtn_code]).toEqual([404, '1007']);
    }
  });

  it.each([
    ['/subscription/billing/list', { pageSize: '101' }],
    ['/subscription/billing/list', { pageSize: '0' }],
    ['/subscription/billing/list', { pageNum: '0' }],
    ['/subscription/billing/list', { pageNum: 'x' }],
    ['/subscription/billing/list', { status: 'PAID' }],
    ['/subscription/user/list', { status: 'NOPE' }],
  ])('1001 for %s %j', async (path, q) => {
    const { c, sub } = await subscribe(v2, 'user-e');
    const query: Record<string, string> = path.includes('billing')
      ? { subscriptionCode: sub.subscriptionCode, ...q }
      : { userId: 'user-e', ...q };
    const r = await c.get(path, query);
    expect([r.status, r.body.rtn_code]).toEqual([400, '1001']);
  });

  it('1001 when required parameters are missing', async () => {
    const c = client(srv.url, v2);
    expect((await c.get('/subscription/detail', {})).body.rtn_code).toBe('1001');
    expect((await c.get('/subscription/user/list', {})).body.rtn_code).toBe('1001');
    expect((await c.post('/subscription/pause', {})).body).toMatchObject({ rtn_code: '1001', data: false });
  });
});

describe('the renewal timer inside serve', () => {
  it('a second serve whose clock is 32 days ahead renews the subscription on its cron', async () => {
    const { c, sub } = await subscribe(v2, 'user-renew');
    const later = await shop.serve({
      args: ['--renew-cron', '* * * * * *'],
      env: { PAYGATE_TEST_CLOCK_OFFSET_MS: String(32 * 24 * 3600 * 1000) },
    });
    try {
      let records: { billingType: string; status: string }[] = [];
      for (let i = 0; i < 40 && !records.some((r) => r.billingType === 'RENEW' && r.status === 'SUCCESS'); i++) {
        await new Promise((r) => setTimeout(r, 250));
        const bills = await c.get('/subscription/billing/list', { subscriptionCode: sub.subscriptionCode });
        records = bills.body.data.records;
      }
      expect(records.some((r) => r.billingType === 'RENEW' && r.status === 'SUCCESS')).toBe(true);
    } finally {
      expect(await later.stop()).toBe(0);
    }
  });
});
