import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, raw, type Served, type TestMerchant } from '../helpers/serve.js';
import { servedShop, type ServedShop } from '../helpers/served-shop.js';

const TOKEN = 'metrics-token-for-tests';
const card = () =>
  JSON.stringify({
    holderName: 'Ada Lovelace',
    cardNumber: '4242424242424242',
    month: '12',
    year: String(new Date().getUTCFullYear() + 2),
    cvv: '123',
  });

let shop: ServedShop;
let m: TestMerchant;
let plain: Served;
let proxied: Served;

beforeAll(async () => {
  shop = await servedShop({ merchants: [[2, 'Test Shop']], serve: { env: { PAYGATE_METRICS_TOKEN: TOKEN } } });
  [m] = shop.merchants as [TestMerchant];
  plain = shop.srv;
  proxied = await shop.serve({ args: ['--trust-proxy', '127.0.0.1/8'] });
});
afterAll(() => shop?.stop());

const logLines = (s: Served): Array<Record<string, unknown>> =>
  s
    .output()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe('GET /metrics', () => {
  it('answers loopback clients in Prometheus text: requests, latency, transactions by type and status, backlog', async () => {
    const pay = await client(plain.url, m).post(`/payment/${m.apiKey}/transaction`, {
      requestId: 'metrics-1',
      relationId: 'metrics-1',
      paymentType: 'PAY',
      payAmount: '10.00',
      currency: 'USD',
      cardInfo: card(),
    });
    expect(pay.body).toMatchObject({ rtn_code: '0000', data: { status: '200000' } });
    const r = await raw(`${plain.url}/metrics`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toContain('text/plain');
    expect(r.text).toContain(
      'paygate_http_requests_total{route="/payment/:apiKey/transaction",method="POST",status="200"} 1',
    );
    expect(r.text).toMatch(
      /paygate_http_request_duration_seconds_bucket\{le="\+Inf",route="\/payment\/:apiKey\/transaction",method="POST"\} 1/,
    );
    expect(r.text).toContain('paygate_transactions{type="PAY",status="SUCCEEDED"} 1');
    expect(r.text).toMatch(/^paygate_outbox_backlog \d+$/m);
    expect(r.text).not.toContain(m.apiKey);
  });

  it('counts rate-limit refusals by route', async () => {
    const c = client(plain.url, m);
    for (let i = 0; i < 301; i++) await c.get('/subscription/plan/list', {});
    const r = await raw(`${plain.url}/metrics`);
    expect(r.text).toContain('paygate_rate_limit_refusals_total{route="/subscription/plan/list"} 1');
  });

  it('refuses a request relayed by an untrusted proxy (forwarding headers, no --trust-proxy) unless it has the token', async () => {
    const relayed = await raw(`${plain.url}/metrics`, { headers: { 'x-forwarded-for': '203.0.113.7' } });
    expect(relayed.status).toBe(403);
    const wrong = await raw(`${plain.url}/metrics`, {
      headers: { 'x-forwarded-for': '203.0.113.7', authorization: 'Bearer nope' },
    });
    expect(wrong.status).toBe(403);
    const withToken = await raw(`${plain.url}/metrics`, {
      headers: { 'x-forwarded-for': '203.0.113.7', authorization: `Bearer ${TOKEN}` },
    });
    expect(withToken.status).toBe(200);
  });

  it('behind a trusted proxy, judges the real client address', async () => {
    expect((await raw(`${proxied.url}/metrics`, { headers: { 'x-forwarded-for': '203.0.113.7' } })).status).toBe(403);
    expect((await raw(`${proxied.url}/metrics`, { headers: { 'x-forwarded-for': '127.0.0.1' } })).status).toBe(200);
  });
});

describe('health', () => {
  it('GET /healthz reports the database reachable and the outbox backlog', async () => {
    const r = await raw(`${plain.url}/healthz`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: 'ok', database: 'ok' });
    expect(typeof r.body.outboxBacklog).toBe('number');
  });

  it('GET /readyz answers ready for a load balancer', async () => {
    const r = await raw(`${plain.url}/readyz`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ status: 'ready' });
  });
});

describe('--trust-proxy', () => {
  it('logs the forwarded client address only from a trusted proxy, with merchant, route, rtn_code and duration', async () => {
    const body = {
      requestId: 'tp-1',
      relationId: 'tp-1',
      paymentType: 'PAY',
      payAmount: '1.00',
      currency: 'USD',
      cardInfo: card(),
    };
    await client(proxied.url, m).post(`/payment/${m.apiKey}/transaction`, body, {
      headers: { 'x-forwarded-for': '198.51.100.23' },
    });
    await client(plain.url, m).post(
      `/payment/${m.apiKey}/transaction`,
      { ...body, requestId: 'tp-2', relationId: 'tp-2' },
      { headers: { 'x-forwarded-for': '198.51.100.23' } },
    );
    await new Promise((r) => setTimeout(r, 100));
    const trusted = logLines(proxied).find((l) => l.msg === 'request' && l.route === '/payment/:apiKey/transaction');
    expect(trusted).toMatchObject({ ip: '198.51.100.23', merchant: m.merchantId, rtn_code: '0000', status: 200 });
    expect(typeof trusted?.ms).toBe('number');
    const untrusted = logLines(plain).find(
      (l) => l.msg === 'request' && l.route === '/payment/:apiKey/transaction' && l.ip !== undefined,
    );
    expect(untrusted?.ip).toBe('127.0.0.1');
  });

  it('counts failed authentications against the real client address behind a trusted proxy', async () => {
    const bad = (ip: string) =>
      raw(`${proxied.url}/payment/not-a-key/transaction`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': ip },
        body: '{}',
      });
    for (let i = 0; i < 60; i++) await bad('192.0.2.1');
    expect((await bad('192.0.2.1')).body.rtn_code).toBe('1004');
    expect((await bad('192.0.2.2')).body.rtn_code).toBe('1003');
  });

  it('refuses a list that is not addresses or ranges, as a usage error', async () => {
    await expect(shop.serve({ args: ['--trust-proxy', '10.0.0.0/99'] })).rejects.toThrow(
      /exited with 2[\s\S]*trust-proxy/,
    );
  });
});
