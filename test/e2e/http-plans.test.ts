import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, raw, type Served, type TestMerchant } from '../helpers/serve.js';
import { servedShop, type ServedShop } from '../helpers/served-shop.js';

let srv: Served;
let v1: TestMerchant;
let v2: TestMerchant;
let shop: ServedShop;

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

const plan = { planName: 'Gold', price: '9.99', currency: 'USD', cycleType: 'MONTHLY', cycleLength: 1 };

describe('plans over HTTP (happy)', () => {
  it.each([1, 2])('creates and lists a plan with signature v%i', async (version) => {
    const m = version === 1 ? v1 : v2;
    const c = client(srv.url, m);
    const created = await c.post('/subscription/plan/create', { ...plan, description: 'the best', trialDays: '7' });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ rtn_code: '0000', rtn_msg: 'success', success: true });
    expect(created.body.data).toMatchObject({
      planName: 'Gold',
      price: 9.99,
      currency: 'USD',
      cycleLength: 1,
      trialDays: 7,
      status: 'ACTIVE',
      merchantId: m.merchantId,
    });
    expect(created.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);

    const list = await c.get('/subscription/plan/list', {});
    expect(list.body.success).toBe(true);
    expect(list.body.data.map((p: { planId: string }) => p.planId)).toContain(created.body.data.planId);
    const inactive = await c.get('/subscription/plan/list', { status: 'INACTIVE' });
    expect(inactive.body.data).toEqual([]);
  });

  it('leaves out fields without value (no description → no key, never null)', async () => {
    const created = await client(srv.url, v2).post('/subscription/plan/create', plan);
    expect(created.body.data).not.toHaveProperty('description');
    expect(created.text).not.toContain('null');
  });

  it('takes GET parameters from a JSON body when the query string is empty (v1 and v2)', async () => {
    const params = { merchantId: v1.merchantId, status: 'ACTIVE' };
    const { signV1, signV2 } = await import('../helpers/serve.js');
    const body1 = JSON.stringify({ ...params, sign: signV1('GET', '/subscription/plan/list', params, v1.secret) });
    const r1 = await raw(`${srv.url}/subscription/plan/list`, {
      method: 'GET',
      headers: { 'content-type': 'application/json' },
      body: body1,
    });
    expect(r1.body).toMatchObject({ rtn_code: '0000' });
    expect(r1.body.data.length).toBeGreaterThan(0);

    const body2 = JSON.stringify({ merchantId: v2.merchantId });
    const r2 = await raw(`${srv.url}/subscription/plan/list`, {
      method: 'GET',
      headers: {
        'content-type': 'application/json',
        'x-paygate-signature': signV2('GET', '/subscription/plan/list', body2, v2.secret),
      },
      body: body2,
    });
    expect(r2.body).toMatchObject({ rtn_code: '0000' });
  });

  it('a GET with both query and body uses the query and ignores the body', async () => {
    const { signV1 } = await import('../helpers/serve.js');
    const q = { merchantId: v1.merchantId, status: 'INACTIVE' };
    const qs = new URLSearchParams({ ...q, sign: signV1('GET', '/subscription/plan/list', q, v1.secret) }).toString();
    const r = await raw(`${srv.url}/subscription/plan/list?${qs}`, {
      method: 'GET',
      headers: { 'content-type': 'application/json' },
      body: '{"status":"ACTIVE","merchantId":"nobody"}',
    });
    expect(r.body).toMatchObject({ rtn_code: '0000', data: [] });
  });

  it('ignores a POST query string', async () => {
    const c = client(srv.url, v2);
    const r = await c.post('/subscription/plan/create?merchantId=nobody&sign=x', plan);
    // The path signed is without the query; the query is ignored, not an error.
    expect(r.status).toBe(401);
    const { signV2 } = await import('../helpers/serve.js');
    const body = JSON.stringify({ merchantId: v2.merchantId, ...plan });
    const ok = await raw(`${srv.url}/subscription/plan/create?merchantId=nobody`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-paygate-signature': signV2('POST', '/subscription/plan/create', body, v2.secret),
      },
      body,
    });
    expect(ok.body).toMatchObject({ rtn_code: '0000' });
  });
});

describe('plans over HTTP (errors)', () => {
  it.each([
    [{ ...plan, price: '9.999' }, 'price'],
    [{ ...plan, price: 9.99 }, 'price'],
    [{ ...plan, currency: 'EUR' }, 'currency'],
    [{ ...plan, cycleType: 'HOURLY' }, 'cycleType'],
    [{ ...plan, cycleLength: '1.5' }, 'cycleLength'],
    [{ ...plan, cycleLength: 13 }, 'cycleLength'],
    [{ ...plan, planName: 'x'.repeat(201) }, 'planName'],
    [{ ...plan, price: '0' }, 'price'],
  ])('1001 naming the field for %j', async (body, field) => {
    const r = await client(srv.url, v1).post('/subscription/plan/create', body);
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ rtn_code: '1001', success: false });
    expect(r.body.rtn_msg).toContain(field);
    expect(r.body).not.toHaveProperty('data');
  });

  it('an empty status filter means no filter, as on the other list endpoints', async () => {
    const c = client(srv.url, v1);
    const all = await c.get('/subscription/plan/list', {});
    const blank = await c.get('/subscription/plan/list', { status: '' });
    expect(blank.status).toBe(200);
    expect(blank.body.data).toEqual(all.body.data);
  });

  it('1001 for a wrong status filter', async () => {
    const r = await client(srv.url, v1).get('/subscription/plan/list', { status: 'GONE' });
    expect(r.status).toBe(400);
    expect(r.body.rtn_code).toBe('1001');
  });
});
