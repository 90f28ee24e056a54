import { afterEach, describe, expect, it } from 'vitest';
import { testApp, type TestApp } from '../helpers/ctx.js';
import { rowsOf } from '../helpers/rows.js';
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
      // The first charge's callback is delivered in the same pass, in no set order.
      const renewal = bodies.find((b) => b.notifyType === 'SUBSCRIPTION' && b.billingType === 'RENEW');
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

describe('a run that fails part-way', () => {
  it('leaves nothing claimed: the next run (and --dry-run) sees the unfinished records due at once', async () => {
    app = await testApp({ now: parseTime('2026-01-31 09:00:00', 'UTC') });
    const { ctx, clock } = app;
    const { merchantId, planId } = await merchantWithPlan(ctx);
    const subs = [];
    for (let i = 0; i < 3; i++) subs.push(await subscribe(ctx, merchantId, planId, { userId: `u${i}` }));
    clock.set(parseTime('2026-02-28 09:00:00', 'UTC'));
    // The channel fails outright (a fault, not a decline) for every renewal charge of this run.
    const real = ctx.channel;
    ctx.channel = {
      ...real,
      name: real.name,
      charge: async () => {
        throw new Error('channel unreachable');
      },
    };
    await expect(runRenewal(ctx)).rejects.toThrow('channel unreachable');
    const { held } = await rowsOf(ctx).get<{ held: number }>(
      "SELECT count(*) AS held FROM billing_records WHERE status = 'PENDING' AND lease_owner IS NOT NULL",
    );
    expect(held).toBe(0);
    expect((await runRenewal(ctx, { dryRun: true })).due).toBe(3);
    ctx.channel = real;
    expect(await runRenewal(ctx)).toMatchObject({ due: 3, succeeded: 3 });
  });
});
