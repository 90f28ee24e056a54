import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { raw, signV1, signV2, type Answer, type Served, type TestMerchant } from '../helpers/serve.js';
import { servedShop, type ServedShop } from '../helpers/served-shop.js';
import { cardYear } from '../helpers/cards.js';

/**
 * Seeded random malformed requests against a real serve: no 5xx, the server still answers, the
 * database is intact. Rate limits are off so signed junk reaches parameter validation.
 */
const SEED = Number(process.env.FUZZ_SEED ?? 20260115);
const COUNT = Number(process.env.FUZZ_COUNT ?? 2500);
const CONCURRENCY = 16;

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

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
    serve: { args: ['--no-rate-limit'], env: { PAYGATE_LOG_LEVEL: 'warn' } },
  });
  srv = shop.srv;
  [v1, v2] = shop.merchants as [TestMerchant, TestMerchant];
});
afterAll(() => shop?.stop());

describe('fuzz', () => {
  it(`${COUNT} seeded malformed requests: no 5xx, still answering, integrity ok (seed ${SEED})`, async () => {
    const rnd = mulberry32(SEED);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)] as T;
    const int = (n: number) => Math.floor(rnd() * n);
    const strings = [
      '',
      ' ',
      '0',
      '-1',
      '1e309',
      '9'.repeat(40),
      '10.00',
      '0.001',
      'null',
      'true',
      "' OR 1=1 --",
      '"; DROP TABLE transactions; --',
      '<script>alert(1)</script>',
      '\u0000',
      '\ud800',
      '\u202e',
      '😀',
      '茶',
      'e\u0301',
      '%00',
      '../../etc/passwd',
      'x'.repeat(600),
      `{"cardNumber":"4242424242424242","month":"12","year":"${cardYear()}","cvv":"123"}`,
      '[{"name":"a","price":"1","num":"1"}]',
      'https://a.test/',
    ];
    const values = (): unknown => {
      switch (int(8)) {
        case 0:
          return pick(strings);
        case 1:
          return int(1e6) - 1000;
        case 2:
          return rnd() * 1e6;
        case 3:
          return rnd() < 0.5;
        case 4:
          return null;
        case 5:
          return [pick(strings), int(5)];
        case 6:
          return { a: pick(strings), cardNumber: '4242424242424242' };
        default:
          return pick(strings);
      }
    };
    const fieldNames = [
      'requestId',
      'relationId',
      'paymentType',
      'planId',
      'userId',
      'payAmount',
      'currency',
      'cardInfo',
      'items',
      'billingAddress',
      'returnUrl',
      'notifyUrl',
      'refundAmount',
      'transactionOrderId',
      'trackingList',
      'planName',
      'price',
      'cycleType',
      'cycleLength',
      'trialDays',
      'subscriptionId',
      'subscriptionCode',
      'pageNum',
      'pageSize',
      'status',
      'sign',
      '__proto__',
      'constructor',
    ];
    const endpoints: [string, (m: TestMerchant) => string][] = [
      ['POST', (m) => `/payment/${m.apiKey}/transaction`],
      ['POST', (m) => `/v1/${m.apiKey}/transaction`],
      ['POST', (m) => `/payment/${m.apiKey}/refund`],
      ['POST', (m) => `/payment/${m.apiKey}/tracking/upload`],
      ['GET', (m) => `/payment/${m.apiKey}/transaction/query`],
      ['POST', () => '/subscription/plan/create'],
      ['GET', () => '/subscription/plan/list'],
      ['POST', () => '/subscription/create'],
      ['GET', () => '/subscription/user/list'],
      ['GET', () => '/subscription/detail'],
      ['GET', () => '/subscription/billing/list'],
      ['POST', () => '/subscription/cancel'],
      ['POST', () => '/subscription/pause'],
      ['POST', () => '/subscription/resume'],
      ['GET', () => '/checkout/' + pick(['x', 'a'.repeat(300), '%2e%2e', '😀'])],
      ['POST', () => '/3ds/' + pick(['x', ''])],
    ];

    const one = async (): Promise<Answer> => {
      const m = rnd() < 0.5 ? v1 : v2;
      const [method0, pathOf] = pick(endpoints);
      const path = pathOf(rnd() < 0.9 ? m : { ...m, apiKey: pick(strings) });
      const method = rnd() < 0.05 ? pick(['PUT', 'DELETE', 'PATCH', 'GET', 'POST']) : method0;
      const params: Record<string, unknown> = rnd() < 0.9 ? { merchantId: m.merchantId } : {};
      for (let i = int(8); i > 0; i--) params[pick(fieldNames)] = values();
      const kind = int(10);
      let body: string | undefined;
      if (kind === 0) body = Buffer.from(Array.from({ length: int(200) }, () => int(256))).toString('latin1');
      else if (kind === 1) body = JSON.stringify(params).slice(0, int(40));
      else if (kind === 2) body = '['.repeat(5000) + ']'.repeat(5000);
      else if (kind === 3) body = JSON.stringify(pick([[1], 'x', 1, null, true]));
      else body = JSON.stringify(params);
      const headers: Record<string, string> = {
        'content-type': pick([
          'application/json',
          'application/json',
          'application/json; charset=utf-8',
          'text/plain',
          'application/x-www-form-urlencoded',
          'multipart/form-data; boundary=x',
        ]),
      };
      let url = srv.url + path;
      const signedParams = { ...params };
      if (method === 'GET' && rnd() < 0.7) {
        const q = Object.fromEntries(
          Object.entries(params).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]),
        );
        if (m.signatureVersion === 1 && rnd() < 0.8) q.sign = signV1('GET', path, q, m.secret);
        const qs = new URLSearchParams(q).toString();
        if (m.signatureVersion === 2 && rnd() < 0.8)
          headers['x-paygate-signature'] = signV2(
            'GET',
            path,
            qs,
            m.secret,
            Math.floor(Date.now() / 1000) + (rnd() < 0.1 ? 1000 : 0),
          );
        url += `?${qs}${rnd() < 0.1 ? '&' + pick(strings) : ''}`;
        body = rnd() < 0.3 ? body : undefined;
      } else if (kind >= 4 && rnd() < 0.8) {
        if (m.signatureVersion === 1)
          body = JSON.stringify({ ...signedParams, sign: signV1(method, path, signedParams, m.secret) });
        else headers['x-paygate-signature'] = signV2(method, path, body ?? '', m.secret);
      }
      return raw(url, { method, headers, ...(body !== undefined ? { body } : {}) });
    };

    const statuses = new Map<number, number>();
    const bad: string[] = [];
    let done = 0;
    const worker = async () => {
      while (done < COUNT) {
        done++;
        try {
          const r = await one();
          statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
          if (r.status >= 500) bad.push(`${r.status} ${r.text.slice(0, 200)}`);
          if (
            r.headers.get('content-type')?.includes('json') &&
            r.body &&
            typeof r.body === 'object' &&
            'rtn_code' in r.body
          ) {
            if (/\bat .+:\d+:\d+|node_modules|SqliteError/.test(r.text)) bad.push(`leak: ${r.text.slice(0, 200)}`);
          }
        } catch (e) {
          bad.push(`transport: ${(e as Error).message}`);
        }
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    expect(bad).toEqual([]);
    expect([...statuses.keys()].every((s) => s < 500)).toBe(true);
    // Some signed junk must have got past authentication into parameter validation.
    expect(statuses.get(400) ?? 0).toBeGreaterThan(100);

    expect((await raw(`${srv.url}/healthz`)).body).toMatchObject({ status: 'ok', database: 'ok' });
    expect(await shop.rows.integrity()).toBe('ok');
  }, 120_000);
});
