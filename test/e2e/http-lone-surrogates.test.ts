import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, raw, signV2, type TestMerchant } from '../helpers/serve.js';
import { servedShop, type ServedShop } from '../helpers/served-shop.js';

/**
 * SPEC §3: text holding a lone surrogate (`"\ud800"` unpaired, a valid JSON escape) is 1001
 * naming the field, on both engines, from the API and the CLI; nothing is stored, so the engines
 * never disagree about such text (nor call two different ids duplicates).
 */

let shop: ServedShop;
let v1: TestMerchant;
let v2: TestMerchant;

beforeAll(async () => {
  shop = await servedShop({
    merchants: [
      [1, 'V1 Text'],
      [2, 'V2 Text'],
    ],
  });
  [v1, v2] = shop.merchants as [TestMerchant, TestMerchant];
});
afterAll(() => shop?.stop());

const year = String(new Date().getUTCFullYear() + 2);
const cardInfo = (holderName = 'Ada') =>
  JSON.stringify({ holderName, cardNumber: '4242424242424242', month: '12', year, cvv: '123' });

const pay = (m: TestMerchant, fields: Record<string, unknown>) =>
  client(shop.url, m).post(`/payment/${m.apiKey}/transaction`, {
    paymentType: 'PAY',
    payAmount: '1.00',
    currency: 'USD',
    cardInfo: cardInfo(),
    ...fields,
  });

describe('lone surrogates over the API', () => {
  it.each([1, 2])('signature v%i: a relationId with a lone surrogate is 1001 naming relationId', async (v) => {
    const m = v === 1 ? v1 : v2;
    for (const relationId of [`order-\ud800-${v}`, `order-\udfff-${v}`]) {
      const r = await pay(m, { requestId: `ls-${v}-${relationId.charCodeAt(6)}`, relationId });
      expect([r.status, r.body.rtn_code]).toEqual([400, '1001']);
      expect(r.body.rtn_msg).toMatch(/^relationId: is not valid Unicode text/);
    }
    expect(await shop.rows.count('transactions')).toBe(0);
  });

  it('the same ids with the pair completed are two different transactions', async () => {
    const a = await pay(v2, { requestId: 'ls-pair-a', relationId: 'order-\ud83d\ude00-1' });
    const b = await pay(v2, { requestId: 'ls-pair-b', relationId: 'order-\ud83d\ude01-1' });
    expect([a.body.rtn_code, b.body.rtn_code]).toEqual(['0000', '0000']);
    expect(a.body.data.relationId).toBe('order-\ud83d\ude00-1');
    expect(b.body.data.relationId).toBe('order-\ud83d\ude01-1');
  });

  it('nested text is named by its path: an item name, the card holder, a tracking entry', async () => {
    const items = await pay(v2, {
      requestId: 'ls-items',
      relationId: 'ls-items',
      items: JSON.stringify([{ name: 'Mug \udc00', num: '1', price: '1.00' }]),
    });
    expect(items.body.rtn_code).toBe('1001');
    expect(items.body.rtn_msg).toMatch(/^items\[0\]\.name: is not valid Unicode text/);

    const holder = await pay(v2, { requestId: 'ls-holder', relationId: 'ls-holder', cardInfo: cardInfo('Ada \ud800') });
    expect(holder.body.rtn_msg).toMatch(/^cardInfo\.holderName: is not valid Unicode text/);

    const tracking = await client(shop.url, v2).post(`/payment/${v2.apiKey}/tracking/upload`, {
      trackingList: JSON.stringify([{ orderId: 'txn_x', trackingNo: 'TN\ud800', trackingChannel: 'DHL' }]),
    });
    expect(tracking.body.rtn_code).toBe('1001');
    expect(tracking.body.rtn_msg).toMatch(/^trackingList\[0\]\.trackingNo: is not valid Unicode text/);
  });

  it('a field name with a lone surrogate is 1001 naming it as an escape', async () => {
    const r = await pay(v2, { requestId: 'ls-key', relationId: 'ls-key', 'note\ud800': 'x' });
    expect(r.body.rtn_code).toBe('1001');
    expect(r.body.rtn_msg).toMatch(/^note\\ud800: is not valid Unicode text/);
  });
});

describe('lone surrogates as raw bytes', () => {
  it('a v2 body with the bytes ED A0 80 in relationId, signed over its bytes, is 1001 naming relationId', async () => {
    const path = `/payment/${v2.apiKey}/transaction`;
    const bytes = Buffer.concat([
      Buffer.from(
        `{"merchantId":"${v2.merchantId}","requestId":"ls-raw","paymentType":"PAY","payAmount":"1.00","currency":"USD","cardInfo":${JSON.stringify(cardInfo())},"relationId":"order-`,
      ),
      Buffer.from([0xed, 0xa0, 0x80]),
      Buffer.from('-1"}'),
    ]);
    const t = Math.floor(Date.now() / 1000);
    const hex = createHmac('sha256', v2.secret)
      .update(Buffer.concat([Buffer.from(`${t}.POST.${path}.`), bytes]))
      .digest('hex');
    const r = await raw(shop.url + path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-paygate-signature': `t=${t},v2=${hex}` },
      body: bytes,
    });
    expect([r.status, r.body.rtn_code]).toEqual([400, '1001']);
    expect(r.body.rtn_msg).toMatch(/^relationId: is not valid Unicode text/);
  });
});

describe('lone surrogates percent-encoded in a query string', () => {
  const get = (query: string) => {
    const path = '/subscription/user/list';
    return raw(`${shop.url}${path}?${query}`, {
      headers: { 'x-paygate-signature': signV2('GET', path, query, v2.secret) },
    });
  };

  it('a query parameter spelling a lone surrogate is 1001 naming it', async () => {
    const r = await get(`merchantId=${v2.merchantId}&userId=u%ED%A0%80`);
    expect([r.status, r.body.rtn_code]).toEqual([400, '1001']);
    expect(r.body.rtn_msg).toMatch(/^userId: is not valid Unicode text/);
  });

  it('a query parameter whose bytes are not UTF-8 is 1000, not read as U+FFFD', async () => {
    const r = await get(`merchantId=${v2.merchantId}&userId=u%FF`);
    expect([r.status, r.body.rtn_code]).toEqual([400, '1000']);
    expect((await get(`merchantId=${v2.merchantId}&userId=u%C3%A9`)).body.rtn_code).toBe('0000');
  });
});

describe('lone surrogates from the CLI', () => {
  it('an item name in --items is a one-line 1001 naming the field, and nothing is stored', async () => {
    const before = await shop.rows.count('transactions');
    const r = shop.cli(
      [
        'pay',
        '--merchant',
        v2.merchantId,
        '--amount',
        '1.00',
        '--card-json',
        '-',
        '--items',
        '[{"name":"Mug \\ud800","num":"1","price":"1.00"}]',
      ],
      { input: cardInfo() },
    );
    expect(r.status).toBe(1);
    expect(r.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^error 1001: items\[0\]\.name: is not valid Unicode text/),
    ]);
    expect(await shop.rows.count('transactions')).toBe(before);
  });
});
