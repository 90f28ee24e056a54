import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/env.js';
import {
  client,
  createMerchant,
  raw,
  signV1,
  startServe,
  type Answer,
  type Served,
  type TestMerchant,
} from '../helpers/serve.js';

/**
 * SPEC §4: v1 joins name=value with & and escapes nothing, so a value holding `&name=` (or a field
 * name holding `=` and `&`) would make a captured signature fit another request. For v1 merchants
 * such requests are 1001 naming the field; a plain & stays fine.
 */

let srv: Served;
let v1: TestMerchant;
let v2: TestMerchant;
let cleanup: () => void;

beforeAll(async () => {
  const t = tempDir('paygate-v1-splice-');
  cleanup = t.cleanup;
  const db = join(t.dir, 's.db');
  v1 = createMerchant(db, 1, 'V1 Shop');
  v2 = createMerchant(db, 2, 'V2 Shop');
  srv = await startServe({ dbPath: db });
});
afterAll(async () => {
  await srv.stop();
  cleanup();
});

const card = JSON.stringify({
  cardNumber: '4242424242424242',
  month: '12',
  year: String(new Date().getUTCFullYear() + 2),
  cvv: '123',
});

/** Send exactly these fields with exactly this sign (a replay). */
const replay = (path: string, fields: Record<string, unknown>, sign: string): Promise<Answer> =>
  raw(srv.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...fields, sign }),
  });

async function paid(relationId: string): Promise<string> {
  const r = await client(srv.url, v1).post(`/payment/${v1.apiKey}/transaction`, {
    requestId: relationId,
    relationId,
    paymentType: 'PAY',
    payAmount: '10.00',
    currency: 'USD',
    cardInfo: card,
  });
  expect(r.body.rtn_code).toBe('0000');
  return r.body.data.transactionOrderId as string;
}

async function refunded(txn: string): Promise<string | undefined> {
  const r = await client(srv.url, v1).get(`/payment/${v1.apiKey}/transaction/query`, { transactionOrderId: txn });
  return r.body.data.refundedAmount as string | undefined;
}

describe('v1 signatures that would fit two requests (SPEC §4)', () => {
  it('a captured refund replayed with its fields spliced into requestId is 1001 and refunds nothing more', async () => {
    const txn = await paid('ord-splice-1');
    const path = `/payment/${v1.apiKey}/refund`;
    const captured = {
      merchantId: v1.merchantId,
      relationId: 'ord-splice-1',
      refundAmount: '1.00',
      requestId: 'rf-1',
      transactionOrderId: txn,
    };
    const sign = signV1('POST', path, captured, v1.secret);
    expect((await replay(path, captured, sign)).body.rtn_code).toBe('0000');

    const { transactionOrderId: _, ...rest } = captured;
    const spliced = { ...rest, requestId: `rf-1&transactionOrderId=${txn}` };
    // Same joined text, so the captured signature is valid for it: that is the attack.
    expect(signV1('POST', path, spliced, v1.secret)).toBe(sign);
    const r = await replay(path, spliced, sign);
    expect([r.status, r.body.rtn_code]).toEqual([400, '1001']);
    expect(r.body.rtn_msg).toMatch(/^requestId: /);
    expect(await refunded(txn)).toBe('1.00');
  });

  it('the same splice through a field name holding "=" and "&" is 1001 naming that field', async () => {
    const txn = await paid('ord-splice-2');
    const path = `/payment/${v1.apiKey}/refund`;
    const captured = {
      merchantId: v1.merchantId,
      relationId: 'ord-splice-2',
      refundAmount: '1.00',
      requestId: 'rf-2',
      transactionOrderId: txn,
    };
    const sign = signV1('POST', path, captured, v1.secret);
    expect((await replay(path, captured, sign)).body.rtn_code).toBe('0000');

    const forged = {
      merchantId: v1.merchantId,
      relationId: 'ord-splice-2',
      refundAmount: '1.00',
      'requestId=rf-2&transactionOrderId': txn,
    };
    expect(signV1('POST', path, forged, v1.secret)).toBe(sign);
    const r = await replay(path, forged, sign);
    expect([r.status, r.body.rtn_code]).toEqual([400, '1001']);
    expect(r.body.rtn_msg).toContain('requestId=rf-2&transactionOrderId');
    expect(await refunded(txn)).toBe('1.00');
  });

  it('nested values count as written for signing (trackingList), and GET query values too', async () => {
    const txn = await paid('ord-splice-3');
    const up = await client(srv.url, v1).post(`/payment/${v1.apiKey}/tracking/upload`, {
      trackingList: [{ orderId: txn, trackingNo: 'TN1&orderId=txn_other', trackingChannel: 'DHL' }],
    });
    expect([up.status, up.body.rtn_code]).toEqual([400, '1001']);
    expect(up.body.rtn_msg).toMatch(/^trackingList: /);
    const q = await client(srv.url, v1).get(`/payment/${v1.apiKey}/transaction/query`, {
      relationId: 'ord-splice-3&transactionOrderId=x',
    });
    expect([q.status, q.body.rtn_code]).toEqual([400, '1001']);
    expect(q.body.rtn_msg).toMatch(/^relationId: /);
  });

  it('plain "&" is fine ("Smith & Sons", "a&b", "&=", "x & y=1")', async () => {
    const c = client(srv.url, v1);
    for (const planName of ['Smith & Sons', 'a&b', 'a&=b', 'x & y=1']) {
      const r = await c.post('/subscription/plan/create', {
        planName,
        price: '9.99',
        currency: 'USD',
        cycleType: 'MONTHLY',
        cycleLength: 1,
      });
      expect([planName, r.body.rtn_code]).toEqual([planName, '0000']);
    }
  });

  it('a wrong signature still answers 1002 first; v2 merchants, whose signature covers the raw body, are not restricted', async () => {
    const fields = {
      merchantId: v1.merchantId,
      planName: 'a&b=c',
      price: '9.99',
      currency: 'USD',
      cycleType: 'MONTHLY',
      cycleLength: 1,
    };
    expect((await replay('/subscription/plan/create', fields, '0'.repeat(64))).body.rtn_code).toBe('1002');
    const r = await client(srv.url, v2).post('/subscription/plan/create', {
      planName: 'a&b=c',
      price: '9.99',
      currency: 'USD',
      cycleType: 'MONTHLY',
      cycleLength: 1,
    });
    expect(r.body.rtn_code).toBe('0000');
  });
});
