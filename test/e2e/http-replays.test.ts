import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, raw, signV1, signV2, type Answer, type TestMerchant } from '../helpers/serve.js';
import { servedShop, type ServedShop } from '../helpers/served-shop.js';

/**
 * SPEC §4 "Replays": a refund or tracking upload sent without requestId is idempotent on its
 * signature. A captured request, sent again (one after another or five at once), answers the
 * first result and moves no money; a request signed anew is a new request.
 */

let shop: ServedShop;
let v1: TestMerchant;
let v2: TestMerchant;
let n = 0;

beforeAll(async () => {
  shop = await servedShop({
    merchants: [
      [1, 'V1 Replays'],
      [2, 'V2 Replays'],
    ],
  });
  [v1, v2] = shop.merchants as [TestMerchant, TestMerchant];
});
afterAll(() => shop?.stop());

const merchant = (version: number): TestMerchant => (version === 1 ? v1 : v2);

async function paid(m: TestMerchant): Promise<string> {
  n++;
  const r = await client(shop.url, m).post(`/payment/${m.apiKey}/transaction`, {
    requestId: `replay-pay-${n}`,
    relationId: `replay-order-${n}`,
    paymentType: 'PAY',
    payAmount: '10.00',
    currency: 'USD',
    cardInfo: JSON.stringify({
      cardNumber: '4242424242424242',
      month: '12',
      year: String(new Date().getUTCFullYear() + 2),
      cvv: '123',
    }),
  });
  expect(r.body.data.status).toBe('200000');
  return r.body.data.transactionOrderId as string;
}

/** A signed request as it travels (body and headers), to be sent again as an attacker would. */
function capture(m: TestMerchant, path: string, body: Record<string, unknown>, t?: number): () => Promise<Answer> {
  const params = { merchantId: m.merchantId, ...body };
  const sent = m.signatureVersion === 1 ? { ...params, sign: signV1('POST', path, params, m.secret) } : params;
  const payload = JSON.stringify(sent);
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (m.signatureVersion === 2) headers['x-paygate-signature'] = signV2('POST', path, payload, m.secret, t);
  return () => raw(shop.url + path, { method: 'POST', headers, body: payload });
}

async function refundsOf(txnId: string): Promise<number> {
  const rows = await shop.rows.all<{ n: number | string }>(
    'SELECT count(*) AS n FROM refunds WHERE transaction_id = ?',
    txnId,
  );
  return Number(rows[0]?.n);
}

async function refundedAmount(m: TestMerchant, txnId: string): Promise<string> {
  const r = await client(shop.url, m).get(`/payment/${m.apiKey}/transaction/query`, { transactionOrderId: txnId });
  return r.body.data.refundedAmount as string;
}

describe('a refund sent without requestId is idempotent on its signature', () => {
  it.each([1, 2])('signature v%i: five identical copies at once make one refund and get one answer', async (v) => {
    const m = merchant(v);
    const txn = await paid(m);
    const send = capture(m, `/payment/${m.apiKey}/refund`, { transactionOrderId: txn, refundAmount: '2.00' });
    const answers = await Promise.all([send(), send(), send(), send(), send()]);
    expect(answers.map((a) => a.body.rtn_code)).toEqual(['0000', '0000', '0000', '0000', '0000']);
    const first = answers[0]?.body.data;
    expect(first).toMatchObject({ transactionOrderId: txn, status: '400010', payAmount: '2.00' });
    for (const a of answers) expect(a.body.data).toEqual(first);
    expect(await refundsOf(txn)).toBe(1);
    expect(await refundedAmount(m, txn)).toBe('2.00');
  });

  it.each([1, 2])('signature v%i: the same request sent again later answers the first refund', async (v) => {
    const m = merchant(v);
    const txn = await paid(m);
    const send = capture(m, `/payment/${m.apiKey}/refund`, { transactionOrderId: txn, refundAmount: '3.00' });
    const first = await send();
    const other = await client(shop.url, m).post(`/payment/${m.apiKey}/refund`, {
      transactionOrderId: txn,
      refundAmount: '1.00',
    });
    expect(other.body.data.status).toBe('400010');
    const again = await send();
    expect(again.body.rtn_code).toBe('0000');
    expect(again.body.data.refundTransactionId).toBe(first.body.data.refundTransactionId);
    expect(again.body.data.payAmount).toBe('3.00');
    expect(await refundsOf(txn)).toBe(2);
    expect(await refundedAmount(m, txn)).toBe('4.00');
  });

  it('a replay in another spelling of the same signature (capitals, v2 header reordered) is the same request', async () => {
    const t1 = await paid(v1);
    const path1 = `/payment/${v1.apiKey}/refund`;
    const params = { merchantId: v1.merchantId, transactionOrderId: t1, refundAmount: '1.00' };
    const sign = signV1('POST', path1, params, v1.secret);
    const send1 = (s: string) =>
      raw(shop.url + path1, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ ...params, sign: s }),
      });
    const a = await send1(sign);
    const b = await send1(sign.toUpperCase());
    expect(b.body.data.refundTransactionId).toBe(a.body.data.refundTransactionId);

    const t2 = await paid(v2);
    const path2 = `/payment/${v2.apiKey}/refund`;
    const payload = JSON.stringify({ merchantId: v2.merchantId, transactionOrderId: t2, refundAmount: '1.00' });
    const header = signV2('POST', path2, payload, v2.secret);
    const [tPart, vPart] = header.split(',') as [string, string];
    const send2 = (h: string) =>
      raw(shop.url + path2, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-paygate-signature': h },
        body: payload,
      });
    const c = await send2(header);
    const d = await send2(`${vPart.toUpperCase().replace('V2=', 'v2=')}, ${tPart}`);
    expect(d.body.rtn_code).toBe('0000');
    expect(d.body.data.refundTransactionId).toBe(c.body.data.refundTransactionId);
    expect([await refundsOf(t1), await refundsOf(t2)]).toEqual([1, 1]);
  });

  it('signature v2: the same refund signed in another second is a second refund', async () => {
    const txn = await paid(v2);
    const now = Math.floor(Date.now() / 1000);
    const body = { transactionOrderId: txn, refundAmount: '2.00' };
    const a = await capture(v2, `/payment/${v2.apiKey}/refund`, body, now - 1)();
    const b = await capture(v2, `/payment/${v2.apiKey}/refund`, body, now)();
    expect([a.body.rtn_code, b.body.rtn_code]).toEqual(['0000', '0000']);
    expect(b.body.data.refundTransactionId).not.toBe(a.body.data.refundTransactionId);
    expect(await refundedAmount(v2, txn)).toBe('4.00');
  });

  it('signature v1: two equal refunds need two requestIds', async () => {
    const txn = await paid(v1);
    const path = `/payment/${v1.apiKey}/refund`;
    const a = await client(shop.url, v1).post(path, {
      transactionOrderId: txn,
      refundAmount: '2.00',
      requestId: 'r-a',
    });
    const b = await client(shop.url, v1).post(path, {
      transactionOrderId: txn,
      refundAmount: '2.00',
      requestId: 'r-b',
    });
    expect(b.body.data.refundTransactionId).not.toBe(a.body.data.refundTransactionId);
    expect(await refundedAmount(v1, txn)).toBe('4.00');
  });

  it('a refused refund records nothing: sent again it is judged afresh', async () => {
    const txn = await paid(v1);
    const path = `/payment/${v1.apiKey}/refund`;
    const send = capture(v1, path, { transactionOrderId: txn, refundAmount: '10.01' });
    expect((await send()).body.rtn_code).toBe('1010');
    expect((await send()).body.rtn_code).toBe('1010');
    expect(await refundsOf(txn)).toBe(0);
  });
});

describe('a tracking upload is idempotent on its signature', () => {
  async function trackUrlOf(txn: string): Promise<string | null> {
    const rows = await shop.rows.all<{ track_url: string | null }>(
      'SELECT track_url FROM tracking_entries WHERE transaction_id = ?',
      txn,
    );
    return rows[0]?.track_url ?? null;
  }

  it.each([1, 2])(
    'signature v%i: a captured upload sent again answers its first result and records nothing',
    async (v) => {
      const m = merchant(v);
      const txn = await paid(m);
      const path = `/payment/${m.apiKey}/tracking/upload`;
      const entry = { orderId: txn, trackingNo: 'TN-1', trackingChannel: 'DHL' };
      const send = capture(m, path, {
        trackingList: [{ ...entry, trackUrl: 'https://track.example/old' }, { orderId: 'txn_NOPE' }],
      });
      const first = await send();
      expect(first.body.data).toMatchObject({ successCount: 1, failedCount: 1, failedOrders: ['txn_NOPE'] });
      const newer = await client(shop.url, m).post(path, {
        trackingList: [{ ...entry, trackUrl: 'https://track.example/new' }],
      });
      expect(newer.body.data.successCount).toBe(1);

      const replays = await Promise.all([send(), send(), send(), send(), send()]);
      for (const r of replays) expect(r.body).toEqual(first.body);
      expect(await trackUrlOf(txn)).toBe('https://track.example/new');
    },
  );
});
