import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, raw, type Served, type TestMerchant } from '../helpers/serve.js';
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
    serve: { args: ['--public-url', 'https://pay.example.test'] },
  });
  srv = shop.srv;
  [v1, v2] = shop.merchants as [TestMerchant, TestMerchant];
});
afterAll(() => shop?.stop());

const card = (cardNumber = '4242424242424242', extra: Record<string, string> = {}) =>
  JSON.stringify({
    holderName: 'Ada Lovelace',
    cardNumber,
    month: '12',
    year: String(new Date().getUTCFullYear() + 2),
    cvv: '123',
    ...extra,
  });

function pay(extra: Record<string, unknown> = {}) {
  n++;
  return {
    requestId: `req-${n}-${Date.now()}`,
    relationId: `rel-${n}-${Date.now()}`,
    paymentType: 'PAY',
    payAmount: '10.00',
    currency: 'USD',
    cardInfo: card(),
    ...extra,
  };
}

const txPath = (m: TestMerchant, alias = false) =>
  alias ? `/v1/${m.apiKey}/transaction` : `/payment/${m.apiKey}/transaction`;

describe('transactions over HTTP (happy)', () => {
  it.each([1, 2])('PAY with 4242… succeeds with signature v%i; amounts are strings', async (version) => {
    const m = version === 1 ? v1 : v2;
    const r = await client(srv.url, m).post(
      txPath(m),
      pay({ items: JSON.stringify([{ name: 'Tea', price: '10.00', num: '1' }]) }),
    );
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ rtn_code: '0000', rtn_msg: 'success', success: true });
    expect(r.body.data).toMatchObject({
      status: '200000',
      payAmount: '10.00',
      currency: 'USD',
      merchantId: m.merchantId,
    });
    expect(r.body.data.transactionOrderId).toMatch(/^txn_/);
    expect(r.body.data).not.toHaveProperty('failReason');
    expect(r.text).not.toContain('4242424242424242');
    expect(r.text).not.toContain('null');
  });

  it('the /v1 alias is equivalent', async () => {
    const r = await client(srv.url, v1).post(txPath(v1, true), pay());
    expect(r.body.data.status).toBe('200000');
  });

  it('a declined card is a successful request carrying FAILED and failReason', async () => {
    const r = await client(srv.url, v2).post(txPath(v2), pay({ cardInfo: card('4000000000009995') }));
    expect(r.status).toBe(200);
    expect(r.body.success).toBe(true);
    expect(r.body.data).toMatchObject({ status: '300000', failReason: 'insufficient_funds' });
  });

  it('3DS cards answer 100040 with a /3ds/ url on the public URL; CHECKOUT answers 100050 with a /checkout/ url', async () => {
    const three = await client(srv.url, v2).post(txPath(v2), pay({ cardInfo: card('4000000000003220') }));
    expect(three.body.data.status).toBe('100040');
    expect(three.body.data.url).toMatch(/^https:\/\/pay\.example\.test\/3ds\/[\w-]+$/);
    const co = await client(srv.url, v2).post(
      txPath(v2),
      pay({ paymentType: 'CHECKOUT', cardInfo: undefined, returnUrl: 'https://shop.test/ok' }),
    );
    expect(co.body.data.status).toBe('100050');
    expect(co.body.data.url).toMatch(/^https:\/\/pay\.example\.test\/checkout\/[\w-]+$/);
  });

  it('the same requestId with the same fields returns the same transaction; the query endpoint finds it both ways', async () => {
    const body = pay();
    const c = client(srv.url, v1);
    const a = await c.post(txPath(v1), body);
    const b = await c.post(txPath(v1, true), body);
    expect(b.body.data.transactionOrderId).toBe(a.body.data.transactionOrderId);
    const q1 = await c.get(`/payment/${v1.apiKey}/transaction/query`, {
      transactionOrderId: a.body.data.transactionOrderId,
    });
    expect(q1.body.data).toMatchObject({
      transactionOrderId: a.body.data.transactionOrderId,
      status: '200000',
      relationId: body.relationId,
    });
    const q2 = await client(srv.url, v2).get(`/payment/${v2.apiKey}/transaction/query`, {
      relationId: body.relationId,
    });
    expect(q2.status).toBe(404);
    expect(q2.body.rtn_code).toBe('1007');
  });

  it('POST /subscription/create subscribes with paymentType left out', async () => {
    const c = client(srv.url, v2);
    const p = await c.post('/subscription/plan/create', {
      planName: 'Monthly',
      price: '5.00',
      currency: 'USD',
      cycleType: 'MONTHLY',
      cycleLength: 1,
    });
    const body = pay({ planId: p.body.data.planId, userId: 'user-1' });
    delete (body as Record<string, unknown>).paymentType;
    const r = await c.post('/subscription/create', body);
    expect(r.body).toMatchObject({ rtn_code: '0000' });
    expect(r.body.data).toMatchObject({ status: '200000', payAmount: '5.00' });
    expect(r.body.data.subscriptionId).toBeTruthy();
    expect(r.body.data.subscriptionCode).toBeTruthy();
  });
});

describe('transactions over HTTP (errors)', () => {
  it.each([
    ['1001', 400, { cardInfo: undefined }],
    ['1001', 400, { payAmount: '0' }],
    ['1001', 400, { payAmount: '10.001' }],
    ['1001', 400, { payAmount: 10 }],
    ['1001', 400, { currency: 'XX' }],
    ['1001', 400, { paymentType: 'LOAN' }],
    ['1001', 400, { requestId: 'r'.repeat(101) }],
    ['1001', 400, { cardInfo: '{not json' }],
    ['1001', 400, { items: JSON.stringify([{ name: '茶', price: '1.00', num: '1' }]) }],
    ['1001', 400, { notifyUrl: 'ftp://x.test/' }],
    ['1011', 422, { cardInfo: card('4242424242424241') }],
    ['1011', 422, { cardInfo: card('4242424242424242', { year: '2001' }) }],
    ['1011', 422, { cardInfo: card('4242424242424242', { month: '13' }) }],
  ])('%s (%i) for %j', async (code, status, extra) => {
    const r = await client(srv.url, v2).post(txPath(v2), pay(extra));
    expect(r.body.rtn_code).toBe(code);
    expect(r.status).toBe(status);
    expect(r.body.success).toBe(false);
  });

  it('1006 for a reused requestId with other fields; 1005 for a reused relationId', async () => {
    const c = client(srv.url, v2);
    const body = pay();
    expect((await c.post(txPath(v2), body)).body.rtn_code).toBe('0000');
    const conflict = await c.post(txPath(v2), { ...body, payAmount: '11.00' });
    expect([conflict.status, conflict.body.rtn_code]).toEqual([409, '1006']);
    const dupRel = await c.post(txPath(v2), { ...pay(), relationId: body.relationId });
    expect([dupRel.status, dupRel.body.rtn_code]).toEqual([409, '1005']);
  });

  it('1003 when the apiKey and merchantId belong to different merchants', async () => {
    const r = await client(srv.url, v2).post(txPath(v1), pay());
    expect([r.status, r.body.rtn_code]).toEqual([401, '1003']);
  });

  it('1007 for an unknown plan, 1009 for an inactive plan', async () => {
    const c = client(srv.url, v1);
    const wrongType = await c.post('/subscription/create', pay({ planId: 'pln_NOPE', userId: 'u' }));
    expect([wrongType.status, wrongType.body.rtn_code]).toEqual([400, '1001']);
    const unknown = await c.post(
      '/subscription/create',
      pay({ planId: 'pln_NOPE', userId: 'u', paymentType: 'SUBSCRIPTION' }),
    );
    expect([unknown.status, unknown.body.rtn_code]).toEqual([404, '1007']);
    const p = await c.post('/subscription/plan/create', {
      planName: 'Old',
      price: '5.00',
      currency: 'USD',
      cycleType: 'MONTHLY',
      cycleLength: 1,
    });
    expect(shop.cli(['plan', 'deactivate', p.body.data.planId, '--merchant', v1.merchantId]).status).toBe(0);
    const inactive = await c.post(
      '/subscription/create',
      pay({ planId: p.body.data.planId, userId: 'u', paymentType: undefined }),
    );
    expect([inactive.status, inactive.body.rtn_code]).toEqual([422, '1009']);
  });

  it('malformed bodies are 1000 with 400 / 413 / 415 and write nothing', async () => {
    const url = srv.url + txPath(v2);
    const cases: [string | Buffer, string | undefined, number][] = [
      ['not json', 'application/json', 400],
      ['[1,2]', 'application/json', 400],
      ['"x"', 'application/json', 400],
      ['', 'application/json', 400],
      ['{"a":1}', 'text/plain', 415],
      ['a=1', 'application/x-www-form-urlencoded', 415],
      [Buffer.alloc(2 * 1024 * 1024, 32), 'application/json', 413],
    ];
    for (const [body, type, status] of cases) {
      const r = await raw(url, { method: 'POST', headers: type ? { 'content-type': type } : {}, body });
      expect([r.status, r.body?.rtn_code]).toEqual([status, '1000']);
    }
  });
});

describe('transaction rate limit', () => {
  it('the 61st transaction in 60 s is 429 + Retry-After, counted across the path and its /v1 alias', async () => {
    const m = shop.merchant(2, 'Limited');
    const c = client(srv.url, m);
    const codes: string[] = [];
    for (let i = 0; i < 60; i++)
      codes.push((await c.post(txPath(m, i % 2 === 1), pay({ payAmount: i === 0 ? '0' : '1.00' }))).body.rtn_code);
    // Refused requests (1001 here) count too: every request that passed the signature check.
    expect(codes[0]).toBe('1001');
    expect(codes.slice(1).every((x) => x === '0000')).toBe(true);
    const r = await c.post(txPath(m, true), pay());
    expect(r.status).toBe(429);
    expect(r.body.rtn_code).toBe('1004');
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
    // The query endpoint has its own budget.
    expect((await c.get(`/payment/${m.apiKey}/transaction/query`, { relationId: 'nope' })).body.rtn_code).toBe('1007');
  });
});

describe('callbacks from serve', () => {
  it('a PAY with notifyUrl gets its payment callback delivered by the serve loop', async () => {
    const { createServer } = await import('node:http');
    const got: { headers: Record<string, unknown>; body: string }[] = [];
    const receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        got.push({ headers: req.headers, body });
        res.writeHead(200).end('success');
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    const port = (receiver.address() as { port: number }).port;
    try {
      const r = await client(srv.url, v2).post(txPath(v2), pay({ notifyUrl: `http://127.0.0.1:${port}/hook` }));
      expect(r.body.data.status).toBe('200000');
      for (let i = 0; i < 40 && got.length === 0; i++) await new Promise((res) => setTimeout(res, 250));
      expect(got.length).toBeGreaterThan(0);
      expect(got[0]?.body).toContain(r.body.data.transactionOrderId);
      expect(got[0]?.body).not.toContain('4242424242424242');
    } finally {
      receiver.close();
    }
  });
});
