import { describe, expect, it } from 'vitest';
import type { Ctx } from '../../src/ctx.js';
import { FixedClock } from '../../src/domain/clock.js';
import { DELIVERY_LEASE_MS } from '../../src/notify/claim.js';
import { deliverDue } from '../../src/notify/deliver.js';
import { callbackHarness } from '../helpers/callback-harness.js';
import { testMerchant, type TestApp } from '../helpers/ctx.js';
import { enqueue, outboxRow, paymentBody } from '../helpers/events.js';

/*
 * A delivery's lease is taken and compared on real time (Clock.wall), whatever clock judges what
 * is due: `renew --at` a month ahead and `serve` on the real clock share the outbox, and each
 * attempt is sent once (docs/callbacks.md). The test clock of the app stands for real time here;
 * the deliverer "ahead" reads the same real time with its business time 30 days later.
 */

const { rx, open } = callbackHarness();
const DAY = 86_400_000;

const waitFor = async (cond: () => boolean, what: string): Promise<void> => {
  for (let i = 0; i < 400; i++) {
    if (cond()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
};

/** The same database and real time, its business clock `days` ahead: a `renew --at` process. */
const ahead = (app: TestApp, days: number): Ctx => ({
  ...app.ctx,
  clock: new FixedClock(app.clock.now() + days * DAY, app.clock),
});

async function oneEventToHangingReceiver(app: TestApp): Promise<string> {
  const m = await testMerchant(app.ctx, { notifyUrl: rx.url('/hooks') });
  return enqueue(app.ctx, { merchantId: m.merchantId, body: paymentBody(m.merchantId, 1) });
}

describe('callback leases on real time', () => {
  it('a deliverer whose test clock runs a month ahead does not take an attempt another deliverer is still sending', async () => {
    const app = await open();
    const id = await oneEventToHangingReceiver(app);
    rx.answer(() => 'hang');
    const serving = deliverDue(app.ctx, { timeoutMs: 1500 });
    await waitFor(() => rx.received.length === 1, 'the first attempt');

    const later = ahead(app, 30);
    const r = await deliverDue(later, { now: later.clock.now(), timeoutMs: 1500 });

    expect(r).toEqual({ delivered: 0, failed: 0, dead: 0 });
    expect(rx.received.map((g) => g.body.eventId)).toEqual([id]);
    await serving;
  });

  it('an attempt a test-clock deliverer left unfinished is taken over once its lease has passed in real time', async () => {
    const app = await open();
    const id = await oneEventToHangingReceiver(app);
    rx.answer(() => 'hang');
    const later = ahead(app, 30);
    // The deliverer ahead is stuck in its attempt (as one killed mid-request would be).
    const stuck = deliverDue(later, { now: later.clock.now(), timeoutMs: 1500 });
    await waitFor(() => rx.received.length === 1, 'the stuck attempt');

    rx.answer(() => 200);
    app.clock.advance(DELIVERY_LEASE_MS + 1000);
    const r = await deliverDue(app.ctx, { timeoutMs: 1500 });

    expect(r).toEqual({ delivered: 1, failed: 0, dead: 0 });
    expect(await outboxRow(app.ctx, id)).toMatchObject({ status: 'DELIVERED', attempts: 1 });
    // The stuck attempt's outcome comes too late: the lease was taken over, the delivery stands.
    expect(await stuck).toEqual({ delivered: 0, failed: 0, dead: 0 });
    expect(await outboxRow(app.ctx, id)).toMatchObject({ status: 'DELIVERED' });
  });
});
