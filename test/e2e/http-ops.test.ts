import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildServer } from '../../src/http/server.js';
import { testApp } from '../helpers/ctx.js';
import { client, raw, type Served, type TestMerchant } from '../helpers/serve.js';
import { servedShop, type ServedShop } from '../helpers/served-shop.js';

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

describe('operations', () => {
  it('GET /healthz answers {"status":"ok"} with a request id', async () => {
    const r = await raw(`${srv.url}/healthz`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: 'ok', database: 'ok' });
    expect(r.headers.get('x-request-id')).toBeTruthy();
  });

  it('an unknown endpoint is a 404 envelope', async () => {
    const r = await raw(`${srv.url}/payment/x/nothing`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject({ rtn_code: '1007', success: false });
  });

  it('every registered route is in /openapi.json (OpenAPI 3.1)', async () => {
    const doc = (await raw(`${srv.url}/openapi.json`)).body as {
      openapi: string;
      paths: Record<string, Record<string, unknown>>;
    };
    expect(doc.openapi).toBe('3.1.0');
    const app = await testApp();
    try {
      const server = await buildServer(app.ctx, { logLevel: 'silent' });
      await server.ready();
      expect(server.paygateRoutes.length).toBeGreaterThan(15);
      for (const r of server.paygateRoutes) {
        const path = r.url.replace(/:([A-Za-z]+)/g, '{$1}');
        expect(doc.paths[path]?.[r.method.toLowerCase()], `${r.method} ${r.url}`).toBeDefined();
      }
      await server.close();
    } finally {
      await app.close();
    }
    for (const p of [
      '/payment/{apiKey}/transaction',
      '/v1/{apiKey}/transaction',
      '/payment/{apiKey}/transaction/query',
      '/subscription/create',
      '/subscription/billing/list',
      '/checkout/{token}',
      '/3ds/{token}',
      '/healthz',
    ]) {
      expect(doc.paths).toHaveProperty([p]);
    }
  });

  it('an unexpected error is 500 / 9999 with the request id and no internals', async () => {
    const app = await testApp();
    try {
      const server = await buildServer(app.ctx, { logLevel: 'silent' });
      server.get('/boom', async () => {
        throw new Error('SELECT secret FROM internals');
      });
      const res = await server.inject({ method: 'GET', url: '/boom' });
      expect(res.statusCode).toBe(500);
      const body = res.json();
      expect(body).toMatchObject({ rtn_code: '9999', success: false });
      expect(body.rtn_msg).toContain(res.headers['x-request-id']);
      expect(res.body).not.toContain('internals');
      await server.close();
    } finally {
      await app.close();
    }
  });

  it('logs carry the request id and never card numbers, CVVs, secrets or signatures', async () => {
    const cardInfo = JSON.stringify({
      holderName: 'Ada',
      cardNumber: '4242424242424242',
      month: '12',
      year: '2099',
      cvv: '987',
    });
    const r = await client(srv.url, v1).post(`/payment/${v1.apiKey}/transaction`, {
      requestId: 'log-1',
      relationId: 'log-1',
      paymentType: 'PAY',
      payAmount: '1.00',
      currency: 'USD',
      cardInfo,
    });
    const q = await client(srv.url, v1).get(`/payment/${v1.apiKey}/transaction/query`, { relationId: 'log-1' });
    const g = await client(srv.url, v2).get('/subscription/plan/list', {});
    // The portal's 3-D Secure return carries a sealed portal token in its path: a credential too.
    const sealed = `sealed${'S'.repeat(60)}`;
    expect((await fetch(`${srv.url}/portal/return/txn_NOPE/${sealed}`)).status).toBeGreaterThanOrEqual(400);
    await new Promise((res) => setTimeout(res, 200));
    const logs = srv.output();
    expect(logs).toContain(r.headers.get('x-request-id'));
    expect(logs).toContain(q.headers.get('x-request-id'));
    expect(logs).not.toContain('4242424242424242');
    expect(logs).not.toContain('"987"');
    for (const m of [v1, v2]) {
      expect(logs).not.toContain(m.secret);
      expect(logs).not.toContain(m.apiKey);
    }
    expect(logs).toMatch(/sign=\[redacted\]/);
    expect(logs).toContain('/portal/return/txn_NOPE/sealed…');
    expect(logs).not.toContain(sealed);
    expect(g.body.rtn_code).toBe('0000');
  });
});

describe('graceful shutdown', () => {
  it('SIGTERM finishes in-flight requests, then exits 0', async () => {
    const one = await shop.serve();
    const c = client(one.url, v2);
    const pending = Array.from({ length: 10 }, (_, i) =>
      c.post(`/payment/${v2.apiKey}/transaction`, {
        requestId: `sd-${i}`,
        relationId: `sd-${i}`,
        paymentType: 'PAY',
        payAmount: '1.00',
        currency: 'USD',
        cardInfo: JSON.stringify({
          holderName: 'Ada',
          cardNumber: '4242424242424242',
          month: '12',
          year: String(new Date().getUTCFullYear() + 2),
          cvv: '123',
        }),
      }),
    );
    await new Promise((r) => setTimeout(r, 5));
    const code = one.stop('SIGTERM');
    const answers = await Promise.allSettled(pending);
    expect(await code).toBe(0);
    expect(one.output()).toContain('paygate stopped');
    // Each request either completed normally or was never accepted — none half-answered.
    for (const a of answers) if (a.status === 'fulfilled') expect([200, 503]).toContain(a.value.status);
    // Every transaction that answered success is on disk: the main server sees it.
    for (const [i, a] of answers.entries()) {
      if (a.status === 'fulfilled' && a.value.body?.success) {
        const q = await client(srv.url, v2).get(`/payment/${v2.apiKey}/transaction/query`, { relationId: `sd-${i}` });
        expect(q.body.data.status).toBe('200000');
      }
    }
  });
});
