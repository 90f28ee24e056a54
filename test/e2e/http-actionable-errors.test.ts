import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, raw, signV1, signV2, type Served, type TestMerchant } from '../helpers/serve.js';
import { servedShop, type ServedShop } from '../helpers/served-shop.js';

/** Errors a developer can act on: 1001 names the field and the rule; 1002 names the failed check. */

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

const card = JSON.stringify({
  cardNumber: '4242424242424242',
  month: '12',
  year: String(new Date().getUTCFullYear() + 2),
  cvv: '123',
});
let n = 0;
const payBody = (over: Record<string, unknown> = {}) => {
  n++;
  return {
    requestId: `r-${n}`,
    relationId: `o-${n}`,
    paymentType: 'PAY',
    payAmount: '10.00',
    currency: 'USD',
    cardInfo: card,
    ...over,
  };
};

describe('1002 says which check failed, never the expected value', () => {
  const path = '/subscription/plan/list';
  const get = (headers: Record<string, string>) => raw(`${srv.url}${path}?merchantId=${v2.merchantId}`, { headers });
  const expected = (t: number) =>
    createHmac('sha256', v2.secret).update(`${t}.GET.${path}.merchantId=${v2.merchantId}`).digest('hex');

  it('v2 without the header: missing, and where the signature goes', async () => {
    const r = await get({});
    expect(r.status).toBe(401);
    expect(r.body).toMatchObject({ rtn_code: '1002', success: false });
    expect(r.body.rtn_msg).toMatch(/missing.*version 2.*X-Paygate-Signature/);
  });

  it('v2 with a header that is not t=…,v2=…: malformed', async () => {
    expect((await get({ 'x-paygate-signature': 'sha256=abc' })).body.rtn_msg).toMatch(
      /malformed.*t=<unix seconds>,v2=/,
    );
  });

  it('v2 signed with another version: the version is unknown', async () => {
    const t = Math.floor(Date.now() / 1000);
    expect((await get({ 'x-paygate-signature': `t=${t},v3=${expected(t)}` })).body.rtn_msg).toMatch(
      /version unknown: v3/,
    );
  });

  it('v2 with a timestamp 20 minutes old: outside the window, by how much', async () => {
    const t = Math.floor(Date.now() / 1000) - 1200;
    const r = await get({ 'x-paygate-signature': `t=${t},v2=${expected(t)}` });
    expect(r.body.rtn_msg).toMatch(
      /timestamp outside the window: t is 1\d{3} s behind the server clock \(allowed ±300 s\)/,
    );
  });

  it('v2 signed with the wrong secret: mismatch, and the expected signature is not in the answer', async () => {
    const t = Math.floor(Date.now() / 1000);
    const r = await get({
      'x-paygate-signature': signV2('GET', path, `merchantId=${v2.merchantId}`, 'wrong-secret', t),
    });
    expect(r.body.rtn_msg).toMatch(/^signature mismatch/);
    expect(r.text).not.toContain(expected(t));
  });

  it('v1 without sign: missing, and where it goes; v1 with a wrong sign: mismatch without the expected value', async () => {
    const missing = await raw(`${srv.url}${path}?merchantId=${v1.merchantId}`);
    expect(missing.body.rtn_msg).toMatch(/missing.*version 1.*sign.*query parameter/);
    const right = signV1('GET', path, { merchantId: v1.merchantId }, v1.secret);
    const wrong = await raw(`${srv.url}${path}?merchantId=${v1.merchantId}&sign=${'0'.repeat(64)}`);
    expect(wrong.body).toMatchObject({ rtn_code: '1002' });
    expect(wrong.body.rtn_msg).toMatch(/^signature mismatch/);
    expect(wrong.text).not.toContain(right);
  });
});

describe('v1 refuses a value that could be read as another field (&name=)', () => {
  it('a requestId carrying "&transactionOrderId=" is 1001 naming requestId, for a v1 merchant', async () => {
    const r = await client(srv.url, v1).post(
      `/payment/${v1.apiKey}/transaction`,
      payBody({ requestId: 'r1&transactionOrderId=txn_1' }),
    );
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ rtn_code: '1001', success: false });
    expect(r.body.rtn_msg).toMatch(
      /^requestId: with signature v1 a value may not contain "&" followed by a name and "="/,
    );
  });

  it('a nested value counts too (items as an array)', async () => {
    const r = await client(srv.url, v1).post(
      `/payment/${v1.apiKey}/transaction`,
      payBody({ items: [{ name: 'a&payAmount=1' }] }),
    );
    expect(r.body.rtn_msg).toMatch(/^items: with signature v1 a value may not contain/);
  });

  it('a plain "&" is fine, and v2 merchants are not affected', async () => {
    expect(
      (
        await client(srv.url, v1).post(
          `/payment/${v1.apiKey}/transaction`,
          payBody({ relationId: `Smith & Sons ${n}` }),
        )
      ).body.data.status,
    ).toBe('200000');
    expect(
      (await client(srv.url, v2).post(`/payment/${v2.apiKey}/transaction`, payBody({ requestId: 'x&relationId=y' })))
        .body.data.status,
    ).toBe('200000');
  });
});

describe('1001 names the field and the rule in plain words', () => {
  const cases: [string, string, Record<string, unknown>, RegExp][] = [
    ['a missing field', 'transaction', { requestId: undefined }, /^requestId: is required$/],
    ['a number for a string', 'transaction', { requestId: 12 }, /^requestId: must be a string$/],
    [
      'a malformed amount',
      'transaction',
      { payAmount: '1.234' },
      /^payAmount: must be a decimal string of at most 10 digits and 2 decimals/,
    ],
    ['a missing card', 'transaction', { cardInfo: undefined }, /^cardInfo: is required$/],
    [
      'a card field too long',
      'transaction',
      { cardInfo: { cardNumber: '4'.repeat(41), month: '12', year: '2040', cvv: '123' } },
      /^cardInfo\.cardNumber: must be at most 40 characters$/,
    ],
    ['an item without name', 'transaction', { items: [{ price: '1.00' }] }, /^items\[0\]\.name: is required$/],
    [
      'an unknown payment type',
      'transaction',
      { paymentType: 'REFUND' },
      /^paymentType: must be PAY, CHECKOUT or SUBSCRIPTION$/,
    ],
    ['a cycle too long', 'plan', { cycleLength: 13 }, /^cycleLength: must be at most 12 for MONTHLY/],
    [
      'a count that is not a number',
      'plan',
      { cycleLength: 'one' },
      /^cycleLength: must be a whole number \(a JSON integer or a string of digits\)$/,
    ],
    [
      'a string of digits too large',
      'plan',
      { cycleLength: '99999999999999999999' },
      /^cycleLength: must be (between|at most)/,
    ],
    ['a closed set', 'plan', { cycleType: 'HOURLY' }, /^cycleType: must be one of DAILY, WEEKLY, MONTHLY, YEARLY$/],
  ];
  it.each(cases)('%s', async (_what, endpoint, patch, message) => {
    const c = client(srv.url, v2);
    const body =
      endpoint === 'plan'
        ? { planName: 'P', price: '1.00', currency: 'USD', cycleType: 'MONTHLY', cycleLength: 1, ...patch }
        : payBody(patch);
    for (const k of Object.keys(body))
      if ((body as Record<string, unknown>)[k] === undefined) delete (body as Record<string, unknown>)[k];
    const r = await c.post(
      endpoint === 'plan' ? '/subscription/plan/create' : `/payment/${v2.apiKey}/transaction`,
      body,
    );
    expect(r.status).toBe(400);
    expect(r.body.rtn_code).toBe('1001');
    expect(r.body.rtn_msg).toMatch(message);
  });

  it('a page size out of range says the range', async () => {
    const r = await client(srv.url, v2).get('/subscription/billing/list', { subscriptionCode: 'x', pageSize: '500' });
    expect(r.body.rtn_msg).toBe('pageSize: must be between 1 and 100');
  });
});
