import { afterEach, describe, expect, it } from 'vitest';
import { testApp, type TestApp } from '../helpers/ctx.js';
import { merchantWithPlan, records, subRow, subscribe } from '../helpers/subscriptions.js';
import { runRenewal } from '../../src/services/renew/index.js';
import { parseTime } from '../../src/domain/time.js';

let app: TestApp;
afterEach(async () => app?.close());

describe('renew smoke', () => {
  it('charges a due monthly renewal once', async () => {
    app = await testApp({ now: parseTime('2026-01-31 09:00:00', 'UTC') });
    const { ctx, clock } = app;
    const { merchantId, planId } = await merchantWithPlan(ctx);
    const sub = await subscribe(ctx, merchantId, planId);
    expect(sub.status).toBe(200000);
    clock.set(parseTime('2026-02-28 09:00:00', 'UTC'));
    const s = await runRenewal(ctx);
    expect(s).toMatchObject({ due: 1, succeeded: 1, failed: 0 });
    const again = await runRenewal(ctx);
    expect(again.due).toBe(0);
    const recs = await records(ctx, sub.subscriptionId);
    expect(recs.map((r) => [r.billing_type, r.status, r.cycle_index])).toEqual([
      ['INITIAL', 'SUCCESS', 0],
      ['RENEW', 'SUCCESS', 1],
      ['RENEW', 'PENDING', 2],
    ]);
    expect(recs[2]?.scheduled_time).toBe(parseTime('2026-03-31 09:00:00', 'UTC'));
    expect(await subRow(ctx, sub.subscriptionId)).toMatchObject({ billing_count: 2, total_paid: 1998 });
  });
});

describe('renew delivers callbacks', () => {
  it('POSTs the RENEW_SUCCEEDED callback to the subscription notifyUrl after the run', async () => {
    const { createServer } = await import('node:http');
    const bodies: Record<string, string>[] = [];
    const server = createServer((req, res) => {
      let data = '';
      req.on('data', (c: Buffer) => (data += c.toString()));
      req.on('end', () => {
        bodies.push(JSON.parse(data) as Record<string, string>);
        res.end('ok');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const port = (server.address() as { port: number }).port;
      app = await testApp({ now: parseTime('2026-01-31 09:00:00', 'UTC') });
      const { ctx, clock } = app;
      const { merchantId, planId } = await merchantWithPlan(ctx);
      const sub = await subscribe(ctx, merchantId, planId, { notifyUrl: `http://127.0.0.1:${port}/cb` });
      clock.set(parseTime('2026-02-28 09:00:00', 'UTC'));
      const s = await runRenewal(ctx);
      expect(s.callbacksDelivered).toBeGreaterThanOrEqual(1);
      const renewal = bodies.find((b) => b.notifyType === 'SUBSCRIPTION');
      expect(renewal).toMatchObject({
        eventType: 'RENEW_SUCCEEDED',
        subscriptionId: sub.subscriptionId,
        recordStatus: 'SUCCESS',
        billingType: 'RENEW',
        amount: '9.99',
        nextBillingTime: '2026-03-31 09:00:00',
        eventTime: '2026-02-28 09:00:00',
      });
    } finally {
      server.close();
    }
  });
});
