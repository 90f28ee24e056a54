import { createHash } from 'node:crypto';
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

async function paid(m: TestMerchant, cardNumber?: string, amount = '10.00') {
  n++;
  const r = await client(srv.url, m).post(`/payment/${m.apiKey}/transaction`, {
    requestId: `p-${n}`,
    relationId: `rel-${n}`,
    paymentType: 'PAY',
    payAmount: amount,
    currency: 'USD',
    cardInfo: card(cardNumber),
  });
  return r.body.data as { transactionOrderId: string; relationId: string; status: string };
}

const refund = (m: TestMerchant, body: Record<string, unknown>) =>
  client(srv.url, m).post(`/payment/${m.apiKey}/refund`, body);

describe('refunds over HTTP', () => {
  it.each([1, 2])('partial then full refund with signature v%i', async (version) => {
    const m = version === 1 ? v1 : v2;
    const t = await paid(m);
    const a = await refund(m, {
      transactionOrderId: t.transactionOrderId,
      refundAmount: '4.00',
      requestId: `rf-${version}-a`,
    });
    expect(a.body).toMatchObject({
      rtn_code: '0000',
      data: {
        status: '400010',
        payAmount: '4.00',
        currency: 'USD',
        transactionOrderId: t.transactionOrderId,
        merchantId: m.merchantId,
      },
    });
    expect(a.body.data.refundTransactionId).toBeTruthy();
    const b = await refund(m, { relationId: t.relationId, refundAmount: '6.00' });
    expect(b.body.data).toMatchObject({ status: '400000', payAmount: '6.00' });
  });

  it('result codes: 1010 over the refundable amount, 1008 unpaid, 1007 unknown, 1001 mismatched ids or bad amount', async () => {
    const t = await paid(v2);
    const over = await refund(v2, { transactionOrderId: t.transactionOrderId, refundAmount: '10.01' });
    expect([over.status, over.body.rtn_code]).toEqual([422, '1010']);
    const declined = await paid(v2, '4000000000000002');
    const unpaid = await refund(v2, { transactionOrderId: declined.transactionOrderId, refundAmount: '1.00' });
    expect([unpaid.status, unpaid.body.rtn_code]).toEqual([409, '1008']);
    const unknown = await refund(v2, { transactionOrderId: 'txn_NOPE', refundAmount: '1.00' });
    expect([unknown.status, unknown.body.rtn_code]).toEqual([404, '1007']);
    const foreign = await refund(v1, { transactionOrderId: t.transactionOrderId, refundAmount: '1.00' });
    expect([foreign.status, foreign.body.rtn_code]).toEqual([404, '1007']);
    const other = await paid(v2);
    const mismatch = await refund(v2, {
      transactionOrderId: t.transactionOrderId,
      relationId: other.relationId,
      refundAmount: '1.00',
    });
    expect([mismatch.status, mismatch.body.rtn_code]).toEqual([400, '1001']);
    for (const refundAmount of ['0', '-1', '1.001', 1]) {
      const r = await refund(v2, { transactionOrderId: t.transactionOrderId, refundAmount });
      expect([r.status, r.body.rtn_code]).toEqual([400, '1001']);
    }
  });

  it('a malformed refundAmount is 1001 before the transaction is looked up (an unknown one included)', async () => {
    for (const refundAmount of ['abc', '-1', '1e3', '0', 5]) {
      const r = await refund(v2, { transactionOrderId: 'txn_does_not_exist', refundAmount });
      expect([r.status, r.body.rtn_code, r.body.rtn_msg]).toEqual([
        400,
        '1001',
        expect.stringMatching(/^refundAmount: /),
      ]);
    }
  });

  it('a fully refunded transaction is 1008 "transaction already fully refunded"', async () => {
    const t = await paid(v2, undefined, '2.00');
    const full = await refund(v2, { transactionOrderId: t.transactionOrderId, refundAmount: '2.00' });
    expect(full.body.rtn_code).toBe('0000');
    const again = await refund(v2, { transactionOrderId: t.transactionOrderId, refundAmount: '1.00' });
    expect([again.status, again.body.rtn_code, again.body.rtn_msg]).toEqual([
      409,
      '1008',
      'transaction already fully refunded',
    ]);
  });

  it('the 31st refund request in 60 s is 429', async () => {
    const m = shop.merchant(2, 'Refunder');
    const codes: string[] = [];
    for (let i = 0; i < 31; i++)
      codes.push((await refund(m, { transactionOrderId: 'txn_NOPE', refundAmount: '1.00' })).body.rtn_code);
    expect(codes.slice(0, 30).every((c) => c === '1007')).toBe(true);
    expect(codes[30]).toBe('1004');
  });
});

/** SPEC §4 tracking response sign, written from the text. */
function trackingSign(data: Record<string, unknown>, secret: string): string {
  const text = Object.keys(data)
    .filter((k) => k !== 'sign')
    .sort()
    .map((k) => (typeof data[k] === 'string' ? data[k] : JSON.stringify(data[k])))
    .join('');
  return createHash('sha256')
    .update(text + secret, 'utf8')
    .digest('hex');
}

describe('tracking upload over HTTP', () => {
  it.each([1, 2])('counts each entry alone and signs the response (merchant v%i)', async (version) => {
    const m = version === 1 ? v1 : v2;
    const t = await paid(m);
    const r = await client(srv.url, m).post(`/payment/${m.apiKey}/tracking/upload`, {
      trackingList: [
        {
          orderId: t.transactionOrderId,
          trackingNo: 'TN1',
          trackingChannel: 'DHL',
          trackUrl: 'https://track.test/TN1',
        },
        { relationId: t.relationId, trackingNo: 'TN2', trackingChannel: 'UPS' },
        { orderId: 'txn_NOPE', trackingNo: 'TN3', trackingChannel: 'DHL' },
        { trackingNo: 'TN4', trackingChannel: 'DHL' },
      ],
    });
    expect(r.body.rtn_code).toBe('0000');
    expect(r.body.data).toMatchObject({ successCount: 2, failedCount: 2, failedOrders: ['txn_NOPE', '#3'] });
    expect(r.body.data.sign).toBe(trackingSign(r.body.data, m.secret));
  });

  it('1001 for an empty list, more than 500 entries, or a list that is not an array', async () => {
    const c = client(srv.url, v2);
    const path = `/payment/${v2.apiKey}/tracking/upload`;
    const entry = { orderId: 'x', trackingNo: 'T', trackingChannel: 'C' };
    for (const trackingList of [[], Array.from({ length: 501 }, () => entry), 'x', undefined]) {
      const r = await c.post(path, { trackingList });
      expect([r.status, r.body.rtn_code]).toEqual([400, '1001']);
    }
  });
});
