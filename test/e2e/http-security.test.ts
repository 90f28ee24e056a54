import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, raw, signV1, signV2, type Served, type TestMerchant } from '../helpers/serve.js';
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

const LIST = '/subscription/plan/list';
const CREATE = '/subscription/plan/create';
const plan = { planName: 'Gold', price: '9.99', currency: 'USD', cycleType: 'MONTHLY', cycleLength: 1 };

function flip(hex: string): string {
  const last = hex.slice(-1);
  return hex.slice(0, -1) + (last === '0' ? '1' : '0');
}

describe('signatures (security)', () => {
  it('v1: a sign off by one character is 1002; a missing sign is 1002', async () => {
    const params = { merchantId: v1.merchantId, ...plan };
    const good = signV1('POST', CREATE, params, v1.secret);
    const r = await raw(srv.url + CREATE, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...params, sign: flip(good) }),
    });
    expect(r.status).toBe(401);
    expect(r.body).toEqual({ rtn_code: '1002', rtn_msg: expect.stringContaining('signature'), success: false });
    const none = await raw(srv.url + CREATE, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(params),
    });
    expect(none.body.rtn_code).toBe('1002');
  });

  it('v1: a signature for one endpoint does not work on another (method and path are signed)', async () => {
    const params = { merchantId: v1.merchantId };
    const sign = signV1('GET', LIST, params, v1.secret);
    const r = await raw(`${srv.url}/subscription/detail?${new URLSearchParams({ ...params, sign })}`);
    // detail needs subscriptionId too, but the signature check comes first.
    expect(r.body.rtn_code === '1002' || r.status === 404).toBe(true);
    const asPost = await raw(srv.url + CREATE, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...params, ...plan, sign }),
    });
    expect(asPost.body.rtn_code).toBe('1002');
  });

  it('v1: every present field is signed (changing a value after signing is 1002)', async () => {
    const params = { merchantId: v1.merchantId, ...plan };
    const sign = signV1('POST', CREATE, params, v1.secret);
    const r = await raw(srv.url + CREATE, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...params, cycleLength: 2, sign }),
    });
    expect(r.body.rtn_code).toBe('1002');
  });

  it('v2: missing header, wrong hex, stale and future timestamps are 1002', async () => {
    const body = JSON.stringify({ merchantId: v2.merchantId, ...plan });
    const post = (sig?: string) =>
      raw(srv.url + CREATE, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(sig ? { 'x-paygate-signature': sig } : {}) },
        body,
      });
    const now = Math.floor(Date.now() / 1000);
    expect((await post()).body.rtn_code).toBe('1002');
    const good = signV2('POST', CREATE, body, v2.secret, now);
    expect((await post(flip(good))).body.rtn_code).toBe('1002');
    const stale = await post(signV2('POST', CREATE, body, v2.secret, now - 301));
    expect(stale.body).toMatchObject({ rtn_code: '1002' });
    expect(stale.body.rtn_msg).toContain('300');
    expect((await post(signV2('POST', CREATE, body, v2.secret, now + 400))).body.rtn_code).toBe('1002');
    expect((await post(signV2('POST', CREATE, body, v2.secret, now - 200))).body.rtn_code).toBe('0000');
  });

  it('v2: the raw body is signed, so re-serialised JSON with the same fields fails', async () => {
    const body = JSON.stringify({ merchantId: v2.merchantId, ...plan });
    const spaced = JSON.stringify({ merchantId: v2.merchantId, ...plan }, null, 1);
    const r = await raw(srv.url + CREATE, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-paygate-signature': signV2('POST', CREATE, body, v2.secret) },
      body: spaced,
    });
    expect(r.body.rtn_code).toBe('1002');
  });

  it('v2: a GET signs the raw query string', async () => {
    const qs = `merchantId=${encodeURIComponent(v2.merchantId)}&status=ACTIVE`;
    const ok = await raw(`${srv.url}${LIST}?${qs}`, {
      headers: { 'x-paygate-signature': signV2('GET', LIST, qs, v2.secret) },
    });
    expect(ok.body.rtn_code).toBe('0000');
    const other = await raw(`${srv.url}${LIST}?${qs}&x=1`, {
      headers: { 'x-paygate-signature': signV2('GET', LIST, qs, v2.secret) },
    });
    expect(other.body.rtn_code).toBe('1002');
  });

  it('1003 before 1002: unknown merchant, or a missing merchantId', async () => {
    const r = await client(srv.url, { ...v1, merchantId: 'mer_NOPE' }).post(CREATE, plan);
    expect(r.status).toBe(401);
    expect(r.body.rtn_code).toBe('1003');
    const none = await raw(srv.url + CREATE, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(plan),
    });
    expect(none.body.rtn_code).toBe('1003');
  });

  it('a rotated secret keeps working (grace) and the new one works at once; a merchant disabled by another process is 1003 within one second', async () => {
    const m = shop.merchant(2, 'Rotating');
    const rot = shop.cli(['--json', 'merchant', 'rotate-secret', m.merchantId]);
    expect(rot.status).toBe(0);
    const fresh = { ...m, secret: rot.json().secret as string };
    expect((await client(srv.url, m).get(LIST, {})).body.rtn_code).toBe('0000');
    expect((await client(srv.url, fresh).get(LIST, {})).body.rtn_code).toBe('0000');
    expect(shop.cli(['merchant', 'update', m.merchantId, '--disable']).status).toBe(0);
    // serve keeps a merchant's row in memory for at most half a second (services/merchant-cache.ts).
    await new Promise((r) => setTimeout(r, 1000));
    expect((await client(srv.url, fresh).get(LIST, {})).body.rtn_code).toBe('1003');
  });

  it('SQL and script fragments, unicode edge cases are data, not code', async () => {
    const c = client(srv.url, v2);
    for (const name of [
      "x'); DROP TABLE plans; --",
      '<script>alert(1)</script>',
      '\u202e\u0000 𝒳 e\u0301',
      '😀'.repeat(10),
    ]) {
      const r = await c.post(CREATE, { ...plan, planName: name });
      expect(r.status).toBeLessThan(500);
      if (r.body.success) expect(r.body.data.planName).toBe(name);
    }
    expect((await c.get(LIST, {})).body.rtn_code).toBe('0000');
  });

  it('a NUL character (U+0000) in any parameter, at any depth, is 1000 naming the parameter, and nothing is written', async () => {
    const c = client(srv.url, v2);
    const before = (await c.get(LIST, {})).body.data.length as number;
    const named = await c.post(CREATE, { ...plan, planName: 'Gold\u0000' });
    expect([named.status, named.body.rtn_code, named.body.success]).toEqual([400, '1000', false]);
    expect(named.body.rtn_msg).toBe(
      'parameter "planName" contains the NUL character (U+0000), which no parameter may contain',
    );
    const nested = await c.post(`/payment/${v2.apiKey}/transaction`, {
      requestId: 'nul-1',
      relationId: 'nul-1',
      paymentType: 'CHECKOUT',
      payAmount: '1.00',
      currency: 'USD',
      items: [{ name: 'a\u0000b', price: '1.00', num: '1' }],
    });
    expect([nested.status, nested.body.rtn_code]).toEqual([400, '1000']);
    expect(nested.body.rtn_msg).toContain('"items"');
    const inQuery = await c.get(LIST, { status: 'ACTIVE\u0000' });
    expect([inQuery.status, inQuery.body.rtn_code]).toEqual([400, '1000']);
    expect((await c.get(LIST, {})).body.data).toHaveLength(before);
  });

  it('a NUL spelled inside a JSON document sent as text (cardInfo, billingAddress, trackingList) is 1000 naming the field, and nothing is written', async () => {
    const c = client(srv.url, v2);
    const planId = (await c.post(CREATE, { ...plan, planName: 'NUL docs' })).body.data.planId as string;
    const card = (holder: string) =>
      JSON.stringify({ holderName: holder, cardNumber: '4242424242424242', month: '12', year: '2040', cvv: '123' });
    const subscribe = (n: string, extra: Record<string, string>) =>
      c.post('/subscription/create', {
        requestId: n,
        relationId: n,
        planId,
        userId: 'nul',
        cardInfo: card('Ada'),
        ...extra,
      });
    const refused = (r: { status: number; body: Record<string, unknown> }, field: string) => {
      expect([r.status, r.body.rtn_code], JSON.stringify(r.body)).toEqual([400, '1000']);
      expect(r.body.rtn_msg).toBe(
        `parameter "${field}" contains the NUL character (U+0000), which no parameter may contain`,
      );
    };
    refused(await subscribe('nul-doc-1', { cardInfo: card('Evil\u0000Name') }), 'cardInfo.holderName');
    refused(
      await subscribe('nul-doc-2', { billingAddress: '{"email":"a\\u0000b@x.example"}' }),
      'billingAddress.email',
    );
    const sub = await subscribe('nul-doc-3', {});
    expect(sub.body.rtn_code, JSON.stringify(sub.body)).toBe('0000');
    const subscriptionId = sub.body.data.subscriptionId as string;
    refused(
      await c.post('/subscription/card/update', { subscriptionId, cardInfo: card('Evil\u0000Name') }),
      'cardInfo.holderName',
    );
    const paid = await c.post(`/payment/${v2.apiKey}/transaction`, {
      requestId: 'nul-doc-4',
      relationId: 'nul-doc-4',
      paymentType: 'PAY',
      payAmount: '1.00',
      currency: 'USD',
      cardInfo: card('Ada'),
    });
    expect(paid.body.data.status).toBe('200000');
    const tracking = `[{"relationId":"nul-doc-4","trackingNo":"a\\u0000b","trackingChannel":"UPS"}]`;
    const upload = await c.post(`/payment/${v2.apiKey}/tracking/upload`, { trackingList: tracking });
    expect([upload.status, upload.body.rtn_code]).toEqual([400, '1000']);
    expect(upload.body.rtn_msg).toMatch(/^parameter "trackingList\[0\]\.trackingNo" contains the NUL character/);
    const count = async (sql: string, ...args: string[]) =>
      Number((await shop.rows.get<{ n: number | string }>(sql, ...args))?.n);
    expect(await count("SELECT count(*) AS n FROM subscriptions WHERE user_id = 'nul'")).toBe(1);
    expect(await count('SELECT count(*) AS n FROM tracking_entries')).toBe(0);
    const holder = 'SELECT holder_name FROM cards WHERE id = (SELECT card_id FROM subscriptions WHERE id = ?)';
    expect(await shop.rows.get(holder, subscriptionId)).toEqual({ holder_name: 'Ada' });
  });

  it('a URL the router cannot decode, or with an over-long segment, is 400/1000 in the envelope', async () => {
    for (const path of ['/payment/%zz/transaction', `/payment/${'a'.repeat(150)}/transaction`, '/subscription/%zz']) {
      const r = await raw(srv.url + path, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      expect(r.status, path).toBe(400);
      expect(JSON.parse(r.text), path).toMatchObject({
        rtn_code: '1000',
        success: false,
        rtn_msg: expect.stringMatching(/^malformed request/),
      });
    }
  });

  it("on the hosted pages' paths the same URLs answer an HTML page (people follow those links)", async () => {
    for (const path of ['/checkout/%zz', `/3ds/${'b'.repeat(150)}`]) {
      const r = await raw(srv.url + path, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      expect(r.status, path).toBe(400);
      expect(r.headers.get('content-type'), path).toBe('text/html; charset=utf-8');
      expect(r.text, path).toContain('Something is wrong with that link');
    }
  });

  it('never answers with a stack trace or internals', async () => {
    const r = await raw(srv.url + CREATE, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"merchantId": {"$gt": ""}, "__proto__": {"x": 1}}',
    });
    expect(r.status).toBeLessThan(500);
    expect(r.text).not.toMatch(/at .*\.js|Error:|node_modules/);
  });
});

describe('rate limits (security)', () => {
  it('failed authentications count against the client address: the 61st in 60 s is 429 with Retry-After', async () => {
    const bad = client(srv.url, { ...v1, merchantId: 'mer_UNKNOWN' });
    let last;
    for (let i = 0; i < 60; i++) {
      last = await bad.get(LIST, {});
      if (last.status === 429) break;
    }
    // Earlier tests of this file spent some of the same budget.
    const r = await bad.get(LIST, {});
    expect(r.status).toBe(429);
    expect(r.body).toMatchObject({ rtn_code: '1004', success: false });
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(Number(r.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    // A correctly signed merchant from the same address is not locked out: its own budget is untouched.
    expect((await client(srv.url, v2).get(LIST, {})).body.rtn_code).toBe('0000');
  });

  it('the 301st plan list of one merchant in 60 s is 429; another merchant is unaffected', async () => {
    const m = shop.merchant(1, 'Busy');
    const c = client(srv.url, m);
    const codes: string[] = [];
    for (let i = 0; i < 301; i++) codes.push((await c.get(LIST, {})).body.rtn_code);
    expect(codes.slice(0, 300).every((x) => x === '0000')).toBe(true);
    expect(codes[300]).toBe('1004');
    expect((await client(srv.url, v1).get(LIST, {})).body.rtn_code).toBe('0000');
  });
});
