import { createHash, createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_VAULT_KEY } from '../helpers/env.js';
import { raw, signV1, signV2, type Answer, type Served, type TestMerchant } from '../helpers/serve.js';
import { servedShop, type ServedShop } from '../helpers/served-shop.js';

/**
 * SPEC §10: nothing derived from a request that carries card data is stored as a plain hash. Real
 * requests over a real `serve`, then every value of every column of every table (and the raw bytes
 * the engine keeps on disk: SQLite's file and its WAL; PostgreSQL's table, TOAST and index files
 * of the database and the WAL written meanwhile) is compared with every plain SHA-256 of what was sent.
 */

let srv: Served;
let v1: TestMerchant;
let v2: TestMerchant;
let shop: ServedShop;
let started: Date;

/** Plain SHA-256 of each text an attacker could guess was hashed: hex (both cases), base64, base64url. */
const plainHashes = new Set<string>();

function remember(texts: string[]): void {
  for (const t of texts) {
    const d = createHash('sha256').update(t, 'utf8').digest();
    for (const s of [d.toString('hex'), d.toString('hex').toUpperCase(), d.toString('base64'), d.toString('base64url')])
      plainHashes.add(s);
  }
}

function sortedJson(value: unknown): string {
  const sort = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(sort)
      : v !== null && typeof v === 'object'
        ? Object.fromEntries(
            Object.keys(v)
              .sort()
              .map((k) => [k, sort((v as Record<string, unknown>)[k])]),
          )
        : v;
  return JSON.stringify(sort(value));
}

/** SPEC §4 step 1–3, written from the text: every field but sign, non-empty, sorted, name=value joined by &. */
function joined(params: Record<string, unknown>): string {
  return Object.keys(params)
    .filter((k) => k !== 'sign' && params[k] !== null && params[k] !== undefined && params[k] !== '')
    .sort()
    .map((k) => `${k}=${typeof params[k] === 'string' ? params[k] : sortedJson(params[k])}`)
    .join('&');
}

/** POST signed for the merchant's version; every plain hash of the request is remembered. */
async function post(m: TestMerchant, path: string, body: Record<string, unknown>): Promise<Answer> {
  const params = { merchantId: m.merchantId, ...body };
  const sent = m.signatureVersion === 1 ? { ...params, sign: signV1('POST', path, params, m.secret) } : params;
  const payload = JSON.stringify(sent);
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (m.signatureVersion === 2) headers['x-paygate-signature'] = signV2('POST', path, payload, m.secret);
  remember([joined(params), joined(body), payload, `POST ${path}\n${joined(params)}`]);
  return raw(srv.url + path, { method: 'POST', headers, body: payload });
}

const year = String(new Date().getUTCFullYear() + 2);
const card = (cardNumber: string, cvv = '123') =>
  JSON.stringify({ holderName: 'Ada Lovelace', cardNumber, month: '12', year, cvv });

beforeAll(async () => {
  // WAL segments a PostgreSQL cluster wrote before this file started hold none of its requests.
  started = new Date(Date.now() - 1000);
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

async function storedValues(): Promise<string[]> {
  const out: string[] = [];
  for (const name of await shop.rows.tables()) {
    for (const row of await shop.rows.all(`SELECT * FROM "${name}"`)) {
      for (const v of Object.values(row)) {
        if (typeof v === 'string') out.push(v);
        else if (Buffer.isBuffer(v)) out.push(v.toString('hex'), v.toString('base64'), v.toString('latin1'));
        // PostgreSQL hands json/jsonb columns over parsed: their text is searched too.
        else if (v !== null && typeof v === 'object' && !(v instanceof Date)) out.push(JSON.stringify(v));
      }
    }
  }
  return out;
}

describe('idempotency fingerprints (SPEC §5, §10)', () => {
  it('no stored value, nor any byte of the database or its WAL, holds a plain SHA-256 of a request', async () => {
    const pay = (m: TestMerchant, n: string, cardNumber: string) =>
      post(m, `/payment/${m.apiKey}/transaction`, {
        requestId: `fp-${n}`,
        relationId: `fp-${n}`,
        paymentType: 'PAY',
        payAmount: '10.00',
        currency: 'USD',
        cardInfo: card(cardNumber, '737'),
      });
    const paid2 = await pay(v2, 'a', '4242424242424242');
    const paid1 = await pay(v1, 'b', '5555555555554444');
    expect([paid2.body.rtn_code, paid1.body.rtn_code]).toEqual(['0000', '0000']);
    expect((await pay(v2, 'c', '4000000000000002')).body.data.status).toBe('300000');

    const rf2 = await post(v2, `/payment/${v2.apiKey}/refund`, {
      transactionOrderId: paid2.body.data.transactionOrderId,
      refundAmount: '1.00',
      requestId: 'fp-rf-a',
    });
    const rf1 = await post(v1, `/payment/${v1.apiKey}/refund`, {
      relationId: 'fp-b',
      refundAmount: '2.00',
      requestId: 'fp-rf-b',
    });
    expect([rf2.body.rtn_code, rf1.body.rtn_code]).toEqual(['0000', '0000']);

    const checkout = await post(v2, `/payment/${v2.apiKey}/transaction`, {
      requestId: 'fp-co',
      relationId: 'fp-co',
      paymentType: 'CHECKOUT',
      payAmount: '3.00',
      currency: 'USD',
      returnUrl: 'https://shop.test/ok',
    });
    expect(checkout.body.rtn_code).toBe('0000');
    const plan = await post(v2, '/subscription/plan/create', {
      planName: 'Gold',
      price: '9.99',
      currency: 'USD',
      cycleType: 'MONTHLY',
      cycleLength: 1,
    });
    expect(plan.body.rtn_code).toBe('0000');
    const sub = await post(v2, '/subscription/create', {
      requestId: 'fp-sub',
      relationId: 'fp-sub',
      planId: plan.body.data.planId,
      userId: 'u-1',
      cardInfo: card('4242424242424242', '4321'),
    });
    expect(sub.body.rtn_code).toBe('0000');
    const tracking = await post(v2, `/payment/${v2.apiKey}/tracking/upload`, {
      trackingList: [{ orderId: paid2.body.data.transactionOrderId, trackingNo: 'TN1', trackingChannel: 'DHL' }],
    });
    expect(tracking.body.data.successCount).toBe(1);

    const values = await storedValues();
    expect(values.length).toBeGreaterThan(50);
    const hits = values.filter((v) => [...plainHashes].some((h) => v.includes(h)));
    expect(hits).toEqual([]);

    // The raw pages too: a value deleted or overwritten by the rekeying must not linger in the files.
    const files = await shop.rows.rawFiles(started);
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      const bytes = file.bytes.toString('latin1');
      expect(
        [...plainHashes].filter((h) => bytes.includes(h)),
        file.name,
      ).toEqual([]);
    }
  });

  it('a repeated request still answers its first transaction or refund; a different one under the same requestId is 1006', async () => {
    const body = {
      requestId: 'idem-1',
      relationId: 'idem-1',
      paymentType: 'PAY',
      payAmount: '5.00',
      currency: 'USD',
      cardInfo: card('4242424242424242'),
    };
    const path = `/payment/${v2.apiKey}/transaction`;
    const first = await post(v2, path, body);
    const again = await post(v2, path, body);
    expect(again.body.data.transactionOrderId).toBe(first.body.data.transactionOrderId);
    const changed = await post(v2, path, { ...body, payAmount: '5.01' });
    expect([changed.status, changed.body.rtn_code]).toEqual([409, '1006']);
    const otherCvv = await post(v2, path, { ...body, cardInfo: card('4242424242424242', '999') });
    expect(otherCvv.body.rtn_code).toBe('1006');

    const rpath = `/payment/${v1.apiKey}/refund`;
    const paidV1 = await post(v1, `/payment/${v1.apiKey}/transaction`, {
      ...body,
      requestId: 'idem-2',
      relationId: 'idem-2',
    });
    const r = { transactionOrderId: paidV1.body.data.transactionOrderId, refundAmount: '1.00', requestId: 'idem-rf' };
    const refunded = await post(v1, rpath, r);
    const repeated = await post(v1, rpath, r);
    expect(repeated.body.data.refundTransactionId).toBe(refunded.body.data.refundTransactionId);
    expect((await post(v1, rpath, { ...r, refundAmount: '2.00' })).body.rtn_code).toBe('1006');
  });
});

describe('fingerprints over the canonical JSON (SPEC §10)', () => {
  const items = JSON.stringify([{ name: 'Mug', num: '1', price: '3.00' }]);
  const checkout = (extra: Record<string, unknown>) => ({
    requestId: 'fp-json-1',
    relationId: 'fp-json-1',
    paymentType: 'CHECKOUT',
    payAmount: '3.00',
    currency: 'USD',
    returnUrl: 'https://shop.test/ok',
    ...extra,
  });

  it('two requests whose v1 strings are equal are different requests: the second under one requestId is 1006', async () => {
    const path = `/payment/${v2.apiKey}/transaction`;
    const first = await post(v2, path, checkout({ failedUrl: 'https://shop.test/f?x=1', items }));
    expect(first.body.rtn_code).toBe('0000');
    const spliced = checkout({ failedUrl: `https://shop.test/f?x=1&items=${items}` });
    expect(joined({ merchantId: v2.merchantId, ...spliced })).toBe(
      joined({ merchantId: v2.merchantId, ...checkout({ failedUrl: 'https://shop.test/f?x=1', items }) }),
    );
    const second = await post(v2, path, spliced);
    expect([second.status, second.body.rtn_code]).toEqual([409, '1006']);
  });

  it('a value sent as a JSON string and the same value as JSON are different requests under one requestId', async () => {
    const path = `/payment/${v2.apiKey}/transaction`;
    const cardValue = JSON.parse(card('4242424242424242')) as Record<string, unknown>;
    const body = {
      requestId: 'fp-typed',
      relationId: 'fp-typed',
      paymentType: 'PAY',
      payAmount: '2.00',
      currency: 'USD',
    };
    // The string holds the value's sorted compact JSON: v1 writes both alike.
    const first = await post(v2, path, { ...body, cardInfo: sortedJson(cardValue) });
    expect(first.body.rtn_code).toBe('0000');
    const asValue = await post(v2, path, { ...body, cardInfo: cardValue });
    expect([asValue.status, asValue.body.rtn_code]).toEqual([409, '1006']);
  });

  it('a request stored by an earlier version (fingerprint over the v1 string) still answers when retried', async () => {
    const path = `/payment/${v2.apiKey}/transaction`;
    const body = {
      requestId: 'fp-legacy',
      relationId: 'fp-legacy',
      paymentType: 'PAY',
      payAmount: '4.00',
      currency: 'USD',
      cardInfo: card('4242424242424242'),
    };
    const first = await post(v2, path, body);
    expect(first.body.data.status).toBe('200000');
    // What the earlier version stored: HMAC(fingerprint key, SHA-256 hex of the v1 joined string).
    const key = createHmac('sha256', Buffer.from(TEST_VAULT_KEY, 'base64'))
      .update('paygate-derived-key:request-fingerprint')
      .digest();
    const legacy = createHmac('sha256', key)
      .update(
        createHash('sha256')
          .update(joined({ merchantId: v2.merchantId, ...body }), 'utf8')
          .digest('hex'),
      )
      .digest('hex');
    await shop.rows.run(
      "UPDATE idempotency_keys SET request_hash = ? WHERE scope = 'transaction' AND request_id = ?",
      legacy,
      'fp-legacy',
    );
    const retried = await post(v2, path, body);
    expect(retried.body.rtn_code).toBe('0000');
    expect(retried.body.data.transactionOrderId).toBe(first.body.data.transactionOrderId);
    const changed = await post(v2, path, { ...body, payAmount: '4.01' });
    expect(changed.body.rtn_code).toBe('1006');
  });
});
