import { rowsOf } from '../helpers/rows.js';
import { describe, expect, it } from 'vitest';
import { deliverDue, startDeliveryLoop } from '../../src/notify/deliver.js';
import { paygateAsync } from '../helpers/cli-async.js';
import { testMerchant, type TestApp } from '../helpers/ctx.js';
import { callbackHarness } from '../helpers/callback-harness.js';
import { enqueue, enqueueIn, outboxRow, paymentBody, subscriptionBody } from '../helpers/events.js';

let app: TestApp;
const { rx, open } = callbackHarness({ build: true });

const waitFor = async (cond: () => boolean | Promise<boolean>, what: string): Promise<void> => {
  for (let i = 0; i < 400; i++) {
    if (await cond()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
};

describe('a hanging receiver', () => {
  it("does not hold up another merchant's callback: it is sent while every hanging request is still open", async () => {
    app = await open();
    const slow = await testMerchant(app.ctx, { name: 'Slow', notifyUrl: rx.url('/hang') });
    const fast = await testMerchant(app.ctx, { name: 'Fast', notifyUrl: rx.url('/ok') });
    const slowIds = await Promise.all(
      [1, 2, 3, 4].map((n) => enqueue(app.ctx, { merchantId: slow.merchantId, body: paymentBody(slow.merchantId, n) })),
    );
    const fastId = await enqueue(app.ctx, { merchantId: fast.merchantId, body: paymentBody(fast.merchantId, 99) });
    let slowAttemptsWhenFastArrived: Promise<number> = Promise.resolve(-1);
    rx.answer((r) => {
      if (r.path === '/hang') return 'hang';
      // No hanging request has finished (they only end at the timeout) when this one arrives.
      // The read starts now, while the hanging requests are still open.
      slowAttemptsWhenFastArrived = Promise.all(slowIds.map((id) => outboxRow(app.ctx, id))).then((rows) =>
        rows.reduce((sum, r) => sum + r.attempts, 0),
      );
      return 200;
    });

    const r = await deliverDue(app.ctx, { concurrency: 4, timeoutMs: 2000 });
    expect(await slowAttemptsWhenFastArrived).toBe(0);
    expect(await outboxRow(app.ctx, fastId)).toMatchObject({ status: 'DELIVERED', attempts: 1 });
    // One merchant gets at most half the slots (2 of 4), so the hanging ones go two at a time.
    expect(r).toEqual({ delivered: 1, failed: 4, dead: 0 });
    for (const id of slowIds)
      expect(await outboxRow(app.ctx, id)).toMatchObject({
        status: 'PENDING',
        attempts: 1,
        lastHttpStatus: null,
        lastError: expect.stringMatching(/timeout/),
      });
  });

  it('the serve loop delivers a new callback while earlier ones hang; stop() waits for the ones in flight', async () => {
    app = await open();
    const slow = await testMerchant(app.ctx, { name: 'Slow', notifyUrl: rx.url('/hang') });
    const fast = await testMerchant(app.ctx, { name: 'Fast', notifyUrl: rx.url('/ok') });
    rx.answer((r) => (r.path === '/hang' ? 'hang' : 200));
    const loop = startDeliveryLoop(app.ctx, { intervalMs: 50, concurrency: 4, timeoutMs: 3000 });
    const slowIds = await Promise.all(
      [1, 2, 3].map((n) => enqueue(app.ctx, { merchantId: slow.merchantId, body: paymentBody(slow.merchantId, n) })),
    );
    await waitFor(() => rx.received.filter((g) => g.path === '/hang').length === 2, 'two hanging requests');
    const fastId = await enqueue(app.ctx, { merchantId: fast.merchantId, body: paymentBody(fast.merchantId, 9) });
    await waitFor(() => rx.received.some((g) => g.path === '/ok'), 'the other merchant’s callback');
    await waitFor(async () => (await outboxRow(app.ctx, fastId)).status === 'DELIVERED', 'the delivery to be recorded');
    expect((await Promise.all(slowIds.map((id) => outboxRow(app.ctx, id)))).map((r) => r.attempts)).toEqual([0, 0, 0]);
    await loop.stop();
    // stop() returned after the two hanging requests ended (timeout) and were recorded.
    expect((await Promise.all(slowIds.map((id) => outboxRow(app.ctx, id)))).map((r) => r.attempts).sort()).toEqual([
      0, 1, 1,
    ]);
  });
});

describe('two deliverers racing', () => {
  it('two `paygate events deliver` processes over 1,000 events: each arrives exactly once, in order per subscription', async () => {
    app = await open({ now: Date.now() - 1000 });
    const a = await testMerchant(app.ctx, { name: 'A', notifyUrl: rx.url('/a') });
    const b = await testMerchant(app.ctx, { name: 'B', signatureVersion: 1, notifyUrl: rx.url('/b') });
    const ids: string[] = [];
    const order = new Map<string, string[]>();
    const now = app.ctx.clock.now();
    await app.ctx.store.transaction(async (tx) => {
      for (let i = 0; i < 1000; i++) {
        const m = i % 2 === 0 ? a : b;
        if (i % 5 === 0) {
          // 200 events spread over 20 subscriptions (10 each), the rest plain payments.
          const sub = `sub_race_${i % 40}`;
          const id = await enqueueIn(tx, now, {
            merchantId: m.merchantId,
            body: subscriptionBody(m.merchantId, sub, 'RENEW_SUCCEEDED', i),
            subscriptionId: sub,
          });
          order.set(sub, [...(order.get(sub) ?? []), id]);
          ids.push(id);
        } else ids.push(await enqueueIn(tx, now, { merchantId: m.merchantId, body: paymentBody(m.merchantId, i) }));
      }
    });

    const [one, two] = await Promise.all([
      paygateAsync(['--db', app.dbPath, 'events', 'deliver', '--concurrency', '8', '--json']),
      paygateAsync(['--db', app.dbPath, 'events', 'deliver', '--concurrency', '8', '--json']),
    ]);
    expect(one.status, one.stderr).toBe(0);
    expect(two.status, two.stderr).toBe(0);
    const r1 = JSON.parse(one.stdout) as { delivered: number; failed: number; dead: number };
    const r2 = JSON.parse(two.stdout) as { delivered: number; failed: number; dead: number };
    expect(r1.delivered + r2.delivered).toBe(1000);
    expect(r1.failed + r2.failed + r1.dead + r2.dead).toBe(0);

    const counts = new Map<string, number>();
    for (const g of rx.received) counts.set(g.body.eventId ?? '', (counts.get(g.body.eventId ?? '') ?? 0) + 1);
    expect(counts.size).toBe(1000);
    expect([...counts.values()].every((n) => n === 1)).toBe(true);
    expect(new Set(counts.keys())).toEqual(new Set(ids));
    const delivered = (await rowsOf(app.ctx).get(
      "SELECT count(*) AS n FROM outbox_events WHERE status = 'DELIVERED' AND attempts = 1",
    )) as { n: number };
    expect(delivered.n).toBe(1000);
    for (const [sub, expected] of order) {
      expect(
        rx.received.filter((g) => g.body.subscriptionId === sub).map((g) => g.body.eventId),
        sub,
      ).toEqual(expected);
    }
  }, 120_000);
});
