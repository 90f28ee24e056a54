import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ContractValidator, currentDocument, type Exchange } from '../helpers/contract.js';
import { tempDir } from '../helpers/env.js';
import {
  client,
  createMerchant,
  raw,
  recordTraffic,
  signV2,
  startServe,
  type Served,
  type TestMerchant,
} from '../helpers/serve.js';

/**
 * A real `serve` answers a traffic set that reaches every endpoint, on happy and error paths,
 * with v1 and v2 merchants; every exchange is then checked against the OpenAPI document.
 */

let srv: Served;
let v1: TestMerchant;
let v2: TestMerchant;
let cleanup: () => void;
const traffic: Exchange[] = [];
let stopRecording: () => void;

const year = String(new Date().getUTCFullYear() + 2);
const cardObj = (cardNumber = '4242424242424242') => ({
  holderName: 'Ada Lovelace',
  cardNumber,
  month: '12',
  year,
  cvv: '123',
});
const card = (cardNumber?: string) => JSON.stringify(cardObj(cardNumber));

beforeAll(async () => {
  const t = tempDir('paygate-contract-');
  cleanup = t.cleanup;
  const db = join(t.dir, 'c.db');
  v1 = createMerchant(db, 1, 'V1 Shop');
  v2 = createMerchant(db, 2, 'V2 Shop');
  srv = await startServe({ dbPath: db });
  // This file keeps its own list (for the coverage checks below) besides the suite-wide one.
  stopRecording = recordTraffic((x) => traffic.push(x));
});
afterAll(async () => {
  stopRecording();
  await srv.stop();
  cleanup();
});

let n = 0;
const ids = (): { requestId: string; relationId: string } => {
  n++;
  return { requestId: `req-${n}`, relationId: `order-${n}` };
};

async function exerciseMerchant(m: TestMerchant): Promise<void> {
  const c = client(srv.url, m);
  const tx = `/payment/${m.apiKey}/transaction`;
  const pay = (over: Record<string, unknown> = {}) =>
    c.post(tx, { ...ids(), paymentType: 'PAY', payAmount: '25.00', currency: 'USD', cardInfo: card(), ...over });

  // Transactions: every outcome of the sandbox, both JSON forms, every refusal of the operation.
  const paid = await pay({
    items: JSON.stringify([{ name: 'Mug', price: '25.00', num: '1' }]),
    billingAddress: { firstName: 'Ada', lastName: 'Lovelace', country: 'GB', email: 'ada@example.com' },
    notifyUrl: 'https://merchant.example/callbacks',
  });
  expect(paid.body.data.status).toBe('200000');
  expect((await pay({ cardInfo: cardObj(), items: [{ name: 'Tea', price: '25.00' }] })).body.data.status).toBe(
    '200000',
  );
  expect((await pay({ cardInfo: card('4000000000000002') })).body.data).toMatchObject({
    status: '300000',
    failReason: 'card_declined',
  });
  expect((await pay({ cardInfo: card('4000000000003220') })).body.data.status).toBe('100040');
  const checkout = await c.post(tx, {
    ...ids(),
    paymentType: 'CHECKOUT',
    payAmount: '5',
    currency: 'JPY',
    returnUrl: 'https://merchant.example/ok',
  });
  expect(checkout.body.data.status).toBe('100050');
  const alias = await c.post(`/v1/${m.apiKey}/transaction`, {
    ...ids(),
    paymentType: 'PAY',
    payAmount: '1.00',
    currency: 'EUR',
    cardInfo: card(),
  });
  expect(alias.status).toBe(200);
  const first = ids();
  const body = { ...first, paymentType: 'PAY', payAmount: '3.00', currency: 'USD', cardInfo: card() };
  await c.post(tx, body);
  expect((await c.post(tx, body)).status).toBe(200);
  expect((await c.post(tx, { ...body, payAmount: '4.00' })).body.rtn_code).toBe('1006');
  expect((await c.post(tx, { ...body, requestId: 'other' })).body.rtn_code).toBe('1005');
  expect((await pay({ cardInfo: card('4242424242424241') })).status).toBe(422);
  expect((await pay({ payAmount: '1.234' })).status).toBe(400);
  expect((await pay({ paymentType: 'SUBSCRIPTION', userId: 'u', planId: 'pln_nope' })).status).toBe(404);

  // Query: by either id, GET with a JSON body, unknown.
  const txnId = paid.body.data.transactionOrderId as string;
  const query = `/payment/${m.apiKey}/transaction/query`;
  expect((await c.get(query, { transactionOrderId: txnId })).status).toBe(200);
  expect((await c.get(query, { relationId: paid.body.data.relationId })).status).toBe(200);
  expect((await c.get(query, { transactionOrderId: 'txn_unknown' })).status).toBe(404);
  expect((await c.get(query, {})).status).toBe(400);
  if (m.signatureVersion === 2) {
    const payload = JSON.stringify({ merchantId: m.merchantId, transactionOrderId: txnId });
    const r = await raw(srv.url + query, {
      method: 'GET',
      headers: { 'content-type': 'application/json', 'x-paygate-signature': signV2('GET', query, payload, m.secret) },
      body: payload,
    });
    expect(r.status).toBe(200);
  }

  // Refunds: partial, full, too much, not refundable, unknown.
  const refund = `/payment/${m.apiKey}/refund`;
  expect(
    (await c.post(refund, { transactionOrderId: txnId, refundAmount: '5.00', requestId: `rf-${n}` })).body.data.status,
  ).toBe('400010');
  expect((await c.post(refund, { relationId: paid.body.data.relationId, refundAmount: '100.00' })).status).toBe(422);
  expect((await c.post(refund, { transactionOrderId: txnId, refundAmount: '20.00' })).body.data.status).toBe('400000');
  expect(
    (await c.post(refund, { transactionOrderId: checkout.body.data.transactionOrderId, refundAmount: '1' })).status,
  ).toBe(409);
  expect((await c.post(refund, { transactionOrderId: 'txn_unknown', refundAmount: '1.00' })).status).toBe(404);

  // Tracking: good and bad entries in one list; an empty list.
  const tracking = `/payment/${m.apiKey}/tracking/upload`;
  const up = await c.post(tracking, {
    trackingList: [
      { orderId: txnId, trackingNo: '1Z999', trackingChannel: 'UPS', trackUrl: 'https://ups.example/1Z999' },
      { relationId: 'nope', trackingNo: 'x', trackingChannel: 'DHL' },
    ],
  });
  expect(up.body.data).toMatchObject({ successCount: 1, failedCount: 1 });
  expect((await c.post(tracking, { trackingList: [] })).status).toBe(400);

  // Plans.
  const plan = await c.post('/subscription/plan/create', {
    planName: 'Monthly',
    description: 'Coffee',
    price: '9.99',
    currency: 'USD',
    cycleType: 'MONTHLY',
    cycleLength: 1,
  });
  expect(plan.status).toBe(200);
  const trial = await c.post('/subscription/plan/create', {
    planName: 'Trial',
    price: '0',
    currency: 'USD',
    cycleType: 'WEEKLY',
    cycleLength: '2',
    trialDays: 7,
    maxSubscriptions: '1',
  });
  expect(trial.status).toBe(200);
  expect(
    (
      await c.post('/subscription/plan/create', {
        planName: 'Long',
        price: '1.00',
        currency: 'USD',
        cycleType: 'MONTHLY',
        cycleLength: 13,
      })
    ).status,
  ).toBe(400);
  expect((await c.get('/subscription/plan/list', {})).body.data.length).toBe(2);
  expect((await c.get('/subscription/plan/list', { status: 'ACTIVE' })).status).toBe(200);
  const planId = plan.body.data.planId as string;

  // Subscriptions: both ways in, a declined first charge, a full plan, every query and transition.
  const sub = await c.post('/subscription/create', { ...ids(), planId, userId: 'user-1', cardInfo: cardObj() });
  expect(sub.body.data.status).toBe('200000');
  const viaTx = await c.post(tx, {
    ...ids(),
    paymentType: 'SUBSCRIPTION',
    planId: trial.body.data.planId,
    userId: 'user-1',
    cardInfo: card(),
  });
  expect(viaTx.status).toBe(200);
  expect(
    (
      await c.post('/subscription/create', {
        ...ids(),
        planId: trial.body.data.planId,
        userId: 'user-2',
        cardInfo: card(),
      })
    ).status,
  ).toBe(422);
  expect(
    (await c.post('/subscription/create', { ...ids(), planId, userId: 'user-3', cardInfo: card('4000000000000002') }))
      .body.data.status,
  ).toBe('300000');
  expect(
    (await c.post('/subscription/create', { ...ids(), paymentType: 'PAY', planId, userId: 'user-3', cardInfo: card() }))
      .status,
  ).toBe(400);
  const subscriptionId = sub.body.data.subscriptionId as string;
  const subscriptionCode = sub.body.data.subscriptionCode as string;
  expect((await c.get('/subscription/user/list', { userId: 'user-1' })).body.data.length).toBe(2);
  expect((await c.get('/subscription/user/list', { userId: 'user-1', status: 'ACTIVE' })).status).toBe(200);
  expect((await c.get('/subscription/detail', { subscriptionId })).status).toBe(200);
  expect((await c.get('/subscription/detail', { subscriptionId: 'sub_unknown' })).status).toBe(404);
  expect((await c.get('/subscription/billing/list', { subscriptionCode })).body.data.pageSize).toBe(10);
  expect(
    (await c.get('/subscription/billing/list', { subscriptionCode, pageNum: '1', pageSize: '1', status: 'SUCCESS' }))
      .status,
  ).toBe(200);
  expect((await c.get('/subscription/billing/list', { subscriptionCode, pageSize: '101' })).status).toBe(400);
  expect((await c.get('/subscription/billing/list', { subscriptionCode: 'nope' })).status).toBe(404);
  const premium = (
    await c.post('/subscription/plan/create', {
      planName: 'Premium',
      price: '19.99',
      currency: 'USD',
      cycleType: 'MONTHLY',
      cycleLength: 1,
    })
  ).body.data.planId as string;
  expect((await c.post('/subscription/change', { subscriptionId, planId: premium })).body.data.result).toBe(
    'SCHEDULED',
  );
  expect(
    (await c.post('/subscription/change', { subscriptionId, planId: premium, when: 'NOW' })).body.data.result,
  ).toBe('CHANGED');
  expect((await c.post('/subscription/change', { subscriptionId, planId: premium, when: 'NOW' })).status).toBe(409);
  expect(
    (await c.post('/subscription/change', { subscriptionId, planId: trial.body.data.planId, when: 'NOW' })).status,
  ).toBe(422);
  expect(
    (await c.post('/subscription/card/update', { subscriptionId, cardInfo: cardObj('5555555555554444') })).body.data
      .status,
  ).toBe('200000');
  expect(
    (await c.post('/subscription/card/update', { subscriptionId, cardInfo: card('4000000000000002') })).body.data
      .status,
  ).toBe('300000');
  expect(
    (await c.post('/subscription/card/update', { subscriptionId, cardInfo: card('4000000000003220') })).body.data
      .status,
  ).toBe('100040');
  expect(
    (await c.post('/subscription/card/update', { subscriptionId, cardInfo: card('4242424242424241') })).status,
  ).toBe(422);
  expect((await c.post('/subscription/card/update', { subscriptionId: 'sub_unknown', cardInfo: card() })).status).toBe(
    404,
  );
  expect((await c.post('/subscription/update', { subscriptionId, email: 'ada@example.com' })).body.data.email).toBe(
    'ada@example.com',
  );
  expect((await c.post('/subscription/update', { subscriptionId, email: 'ada at example' })).body.rtn_code).toBe(
    '1001',
  );
  expect((await c.post('/subscription/update', { subscriptionId: 'sub_unknown', email: 'a@b.co' })).status).toBe(404);
  expect((await c.post('/subscription/pause', { subscriptionId })).body.data).toBe(true);
  expect((await c.post('/subscription/pause', { subscriptionId })).status).toBe(409);
  expect((await c.post('/subscription/resume', { subscriptionId })).body.data).toBe(true);
  // Coupons: created, listed, taken, refused (1005, 1012), deactivated.
  const coupon = { code: 'CONTRACT', percentOff: '12.5', duration: 'REPEATING', cycles: 2, maxRedemptions: 5 };
  expect((await c.post('/coupon/create', coupon)).status).toBe(200);
  expect((await c.post('/coupon/create', coupon)).body.rtn_code).toBe('1005');
  expect((await c.post('/coupon/create', { code: 'bad code', amountOff: '1', duration: 'ONCE' })).status).toBe(400);
  expect((await c.get('/coupon/list', {})).body.data[0].couponCode).toBe('CONTRACT');
  expect((await c.post('/subscription/coupon', { subscriptionId, couponCode: 'CONTRACT' })).body.data.couponCode).toBe(
    'CONTRACT',
  );
  expect((await c.post('/subscription/coupon', { subscriptionId, couponCode: 'NOPE' })).status).toBe(422);
  expect((await c.post('/coupon/deactivate', { code: 'CONTRACT' })).body.data.status).toBe('INACTIVE');
  expect((await c.post('/coupon/deactivate', { code: 'CONTRACT' })).status).toBe(409);
  expect((await c.post('/coupon/deactivate', { code: 'NOPE' })).status).toBe(404);
  expect((await c.post('/subscription/cancel', { subscriptionId })).body.data).toBe(true);
  expect((await c.post('/subscription/coupon', { subscriptionId, couponCode: 'CONTRACT' })).status).toBe(409);
  expect((await c.post('/subscription/resume', { subscriptionId })).status).toBe(409);
  expect((await c.post('/subscription/card/update', { subscriptionId, cardInfo: card() })).status).toBe(409);
  expect((await c.post('/subscription/cancel', { subscriptionId: 'sub_unknown' })).status).toBe(404);

  // Authentication: unsigned, wrong secret, unknown merchant.
  expect((await c.post(refund, { transactionOrderId: txnId, refundAmount: '1.00' }, { sign: false })).status).toBe(401);
  expect(
    (await client(srv.url, { ...m, secret: 'wrong' }).get('/subscription/detail', { subscriptionId })).status,
  ).toBe(401);
  expect(
    (await client(srv.url, { ...m, merchantId: 'mch_unknown' }).post('/subscription/pause', { subscriptionId })).status,
  ).toBe(401);
}

describe('the OpenAPI document describes what the server does', () => {
  it('a traffic set over every endpoint, happy and error paths, v1 and v2, has no violation', async () => {
    await exerciseMerchant(v2);
    await exerciseMerchant(v1);
    // Malformed requests: not JSON, wrong content type, too large, a GET body of the wrong type.
    const tx = `${srv.url}/payment/${v2.apiKey}/transaction`;
    expect(
      (await raw(tx, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"merchantId":' }))
        .status,
    ).toBe(400);
    expect((await raw(tx, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'hello' })).status).toBe(
      415,
    );
    expect(
      (
        await raw(tx, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: `{"x":"${'a'.repeat(1024 * 1024 + 10)}"}`,
        })
      ).status,
    ).toBe(413);
    expect(
      (
        await raw(`${srv.url}/subscription/detail`, {
          method: 'GET',
          headers: { 'content-type': 'text/plain' },
          body: 'x',
        })
      ).status,
    ).toBe(415);
    // Rate limit: refunds allow 30 a minute per apiKey; the 31st answers 429 with Retry-After.
    const c = client(srv.url, v2);
    let last = 0;
    for (let i = 0; i < 31; i++)
      last = (await c.post(`/payment/${v2.apiKey}/refund`, { transactionOrderId: 'txn_unknown', refundAmount: '1.00' }))
        .status;
    expect(last).toBe(429);
    // Operations and hosted pages.
    expect((await raw(`${srv.url}/healthz`)).status).toBe(200);
    expect((await raw(`${srv.url}/openapi.json`)).status).toBe(200);
    const page = (
      await c.post(`/payment/${v2.apiKey}/transaction`, {
        ...ids(),
        paymentType: 'CHECKOUT',
        payAmount: '2.00',
        currency: 'USD',
      })
    ).body.data.url as string;
    expect((await raw(page)).status).toBe(200);
    expect((await raw(`${srv.url}/checkout/unknown-token`)).status).toBeGreaterThanOrEqual(400);

    const validator = new ContractValidator(currentDocument());
    expect(validator.violations(traffic)).toEqual([]);

    // The set reached every documented API operation, and every error status they document.
    const reached = new Set(
      traffic.map(
        (x) =>
          `${x.method} ${new URL(x.url).pathname.replace(/\/(mch|ak|api)_[^/]+|\/payment\/[^/]+\/|\/v1\/[^/]+\//, (s) => (s.startsWith('/payment/') ? '/payment/{apiKey}/' : s.startsWith('/v1/') ? '/v1/{apiKey}/' : s))}`,
      ),
    );
    const documented = Object.entries(validator.doc.paths as Record<string, Record<string, unknown>>).flatMap(
      ([p, ops]) => Object.keys(ops).map((mth) => `${mth.toUpperCase()} ${p}`),
    );
    const api = documented.filter((d) => d.includes('/payment/') || d.includes('/v1/') || d.includes('/subscription/'));
    expect(api.filter((d) => !reached.has(d))).toEqual([]);
    expect([...new Set(traffic.map((x) => x.status))].sort()).toEqual(
      expect.arrayContaining([200, 400, 401, 404, 409, 413, 415, 422, 429]),
    );
  });
});

describe('the contract validator', () => {
  const validator = new ContractValidator(currentDocument());
  const base = 'http://127.0.0.1:1';
  const headers = { 'content-type': 'application/json; charset=utf-8', 'x-request-id': 'x' };

  it('flags a success without data, an undocumented status, and a missing Retry-After', () => {
    const detail = {
      method: 'GET',
      url: `${base}/subscription/detail?merchantId=m&subscriptionId=s`,
      responseHeaders: headers,
    };
    expect(
      validator
        .check({ ...detail, status: 200, responseBody: '{"rtn_code":"0000","rtn_msg":"success","success":true}' })
        .join(),
    ).toContain('data');
    expect(validator.check({ ...detail, status: 418, responseBody: '{}' }).join()).toContain('418');
    const limited = validator.check({
      ...detail,
      status: 429,
      responseBody: '{"rtn_code":"1004","rtn_msg":"slow down","success":false}',
    });
    expect(limited.join()).toContain('Retry-After');
  });

  it('flags an accepted request the document forbids, and a 1001 answered with the wrong status', () => {
    const ok =
      '{"rtn_code":"0000","rtn_msg":"success","success":true,"data":{"total":0,"pageNum":1,"pageSize":10,"records":[]}}';
    const page = (q: string) =>
      validator.check({
        method: 'GET',
        url: `${base}/subscription/billing/list?${q}`,
        status: 200,
        responseHeaders: headers,
        responseBody: ok,
      });
    expect(page('merchantId=m&subscriptionCode=c&pageNum=1&pageSize=10')).toEqual([]);
    expect(page('merchantId=m&subscriptionCode=c&pageSize=101').join()).toContain('pageSize');
    expect(page('merchantId=m').join()).toContain('subscriptionCode');
    const wrong = validator.check({
      method: 'GET',
      url: `${base}/subscription/detail`,
      status: 404,
      responseHeaders: headers,
      responseBody: '{"rtn_code":"1001","rtn_msg":"x","success":false}',
    });
    expect(wrong.join()).toContain('rtn_code');
  });
});
