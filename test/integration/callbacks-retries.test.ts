import { afterEach, describe, expect, it } from 'vitest';
import { deliverDue } from '../../src/notify/deliver.js';
import { formatTime } from '../../src/domain/time.js';
import { listEvents } from '../../src/services/events.js';
import { paygate } from '../helpers/cli.js';
import { paygateAsync } from '../helpers/cli-async.js';
import { testMerchant, type TestApp } from '../helpers/ctx.js';
import { callbackHarness } from '../helpers/callback-harness.js';
import { enqueue, outboxRow, paymentBody, subscriptionBody } from '../helpers/events.js';
import { verifyV2Callback } from '../helpers/receiver.js';

const MIN = 60_000;
const HOUR = 60 * MIN;

let app: TestApp;
const { rx, open } = callbackHarness({ build: true });
afterEach(() => {
  arrivals.length = 0;
});

/** The test clock at each arrival, in seconds (the signature's t is real time, not this). */
const arrivals: number[] = [];
const arrivalTimes = (): number[] => arrivals;
const answerAt = (fn: () => number): void =>
  rx.answer(() => {
    arrivals.push(app.clock.now() / 1000);
    return fn();
  });

describe('retry schedule (test clock)', () => {
  it('500 three times then 200: delivered on the 4th attempt at t0, +1 min, +5 min, +30 min', async () => {
    app = await open();
    const t0 = app.clock.now();
    const m = await testMerchant(app.ctx, { notifyUrl: rx.url() });
    let calls = 0;
    answerAt(() => (++calls <= 3 ? 500 : 200));
    const id = await enqueue(app.ctx, { merchantId: m.merchantId, body: paymentBody(m.merchantId, 1) });

    const steps: [number, { delivered: number; failed: number; dead: number }][] = [
      [0, { delivered: 0, failed: 1, dead: 0 }],
      [MIN - 1000, { delivered: 0, failed: 0, dead: 0 }], // not yet due
      [MIN, { delivered: 0, failed: 1, dead: 0 }],
      [6 * MIN - 1000, { delivered: 0, failed: 0, dead: 0 }],
      [6 * MIN, { delivered: 0, failed: 1, dead: 0 }],
      [36 * MIN - 1000, { delivered: 0, failed: 0, dead: 0 }],
      [36 * MIN, { delivered: 1, failed: 0, dead: 0 }],
      [48 * HOUR, { delivered: 0, failed: 0, dead: 0 }],
    ];
    for (const [offset, expected] of steps) {
      app.clock.set(t0 + offset);
      expect(await deliverDue(app.ctx, { now: app.clock.now() })).toEqual(expected);
    }
    const s0 = t0 / 1000;
    expect(arrivalTimes()).toEqual([s0, s0 + 60, s0 + 360, s0 + 2160]);
    expect(new Set(rx.received.map((g) => g.body.eventId))).toEqual(new Set([id]));
    expect(await outboxRow(app.ctx, id)).toMatchObject({
      status: 'DELIVERED',
      attempts: 4,
      lastHttpStatus: 200,
      lastError: null,
      deliveredAt: t0 + 36 * MIN,
    });
  });

  it('a receiver that never answers 2xx: DEAD after the 7th attempt; `events resend` (real CLI) gets it delivered once it is back', async () => {
    app = await open();
    const t0 = app.clock.now();
    const m = await testMerchant(app.ctx, { notifyUrl: rx.url() });
    answerAt(() => 503);
    const id = await enqueue(app.ctx, { merchantId: m.merchantId, body: paymentBody(m.merchantId, 1) });
    const offsets = [0, 1, 6, 36, 156, 516, 1956].map((min) => min * MIN); // +1m, +5m, +30m, +2h, +6h, +24h
    for (const [i, offset] of offsets.entries()) {
      app.clock.set(t0 + offset);
      const r = await deliverDue(app.ctx);
      expect(r).toEqual(i < 6 ? { delivered: 0, failed: 1, dead: 0 } : { delivered: 0, failed: 0, dead: 1 });
      if (i < 6) {
        // Never early: one second before the next scheduled time nothing is sent.
        app.clock.set(t0 + (offsets[i + 1] ?? 0) - 1000);
        expect(await deliverDue(app.ctx)).toEqual({ delivered: 0, failed: 0, dead: 0 });
      }
    }
    expect(arrivalTimes()).toEqual(offsets.map((o) => (t0 + o) / 1000));
    expect(await outboxRow(app.ctx, id)).toMatchObject({ status: 'DEAD', attempts: 7, lastHttpStatus: 503 });
    app.clock.set(t0 + 100 * HOUR);
    expect(await deliverDue(app.ctx)).toEqual({ delivered: 0, failed: 0, dead: 0 });
    expect(rx.received).toHaveLength(7);

    const env = {};
    const listed = paygate(['--db', app.dbPath, 'events', 'list', '--status', 'DEAD', '--json'], { env });
    expect(listed.status, listed.stderr).toBe(0);
    expect(listed.json()).toEqual([
      expect.objectContaining({
        eventId: id,
        status: 'DEAD',
        attempts: 7,
        lastHttpStatus: 503,
        lastError: expect.stringMatching(/HTTP 503/),
      }),
    ]);

    // The merchant's server is back.
    rx.answer(() => 200);
    const resent = paygate(['--db', app.dbPath, 'events', 'resend', id, '--json'], { env });
    expect(resent.status, resent.stderr).toBe(0);
    expect(resent.json()).toMatchObject({ eventId: id, status: 'PENDING', attempts: 0 });
    expect(resent.json().lastHttpStatus).toBeUndefined();
    // Already queued again: 1008; unknown: 1007.
    const again = paygate(['--db', app.dbPath, 'events', 'resend', id], { env });
    expect(again.status).toBe(1);
    expect(again.stderr).toMatch(/^error 1008: /);
    const unknown = paygate(['--db', app.dbPath, 'events', 'resend', 'evt_nope'], { env });
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toMatch(/^error 1007: event not found/);

    // Due at the CLI's (real) time of the resend, which is before the test clock here.
    expect(await deliverDue(app.ctx, { now: Date.now() + 1000 })).toEqual({ delivered: 1, failed: 0, dead: 0 });
    expect(rx.received).toHaveLength(8);
    expect(rx.received[7]?.body.eventId).toBe(id);
    expect(
      verifyV2Callback(rx.received[7]?.headers['x-paygate-signature'], rx.received[7]?.rawBody ?? '', m.secret),
    ).toBeDefined();
    expect(await outboxRow(app.ctx, id)).toMatchObject({ status: 'DELIVERED', attempts: 1 });

    // A delivered event can be resent too (the merchant lost it): the CLI deliverer sends it, --at as test clock.
    const again2 = paygate(['--db', app.dbPath, 'events', 'resend', id, '--json'], { env });
    expect(again2.status, again2.stderr).toBe(0);
    const delivered = await paygateAsync([
      '--db',
      app.dbPath,
      'events',
      'deliver',
      '--at',
      formatTime(Date.now() + 60_000, 'UTC'),
      '--json',
    ]);
    expect(delivered.status, delivered.stderr).toBe(0);
    expect(JSON.parse(delivered.stdout)).toEqual({ delivered: 1, failed: 0, dead: 0 });
    expect(rx.received).toHaveLength(9);
  });
});

describe('order per subscription', () => {
  it('a later event waits while an earlier one of the same subscription is PENDING; other subscriptions do not wait', async () => {
    app = await open();
    const t0 = app.clock.now();
    const m = await testMerchant(app.ctx, { notifyUrl: rx.url() });
    const body = (n: number, sub = 'sub_o') =>
      subscriptionBody(m.merchantId, sub, n === 1 ? 'RENEW_FAILED' : 'RENEW_SUCCEEDED', n);
    const e1 = await enqueue(app.ctx, { merchantId: m.merchantId, body: body(1), subscriptionId: 'sub_o' });
    const e2 = await enqueue(app.ctx, { merchantId: m.merchantId, body: body(2), subscriptionId: 'sub_o' });
    const e3 = await enqueue(app.ctx, { merchantId: m.merchantId, body: body(3), subscriptionId: 'sub_o' });
    const other = await enqueue(app.ctx, {
      merchantId: m.merchantId,
      body: body(4, 'sub_other'),
      subscriptionId: 'sub_other',
    });
    let failFirst = true;
    rx.answer((r) => {
      if (r.body.eventId !== e1 || !failFirst) return 200;
      failFirst = false;
      return 500;
    });

    expect(await deliverDue(app.ctx)).toEqual({ delivered: 1, failed: 1, dead: 0 });
    expect(rx.received.map((g) => g.body.eventId).sort()).toEqual([e1, other].sort());
    expect((await outboxRow(app.ctx, e2)).status).toBe('PENDING');
    expect((await outboxRow(app.ctx, e2)).attempts).toBe(0);

    app.clock.set(t0 + MIN);
    expect(await deliverDue(app.ctx)).toEqual({ delivered: 3, failed: 0, dead: 0 });
    expect(rx.received.slice(2).map((g) => g.body.eventId)).toEqual([e1, e2, e3]);
  });

  it('a DEAD event does not block the later ones', async () => {
    app = await open();
    const t0 = app.clock.now();
    const m = await testMerchant(app.ctx, { notifyUrl: rx.url() });
    const e1 = await enqueue(app.ctx, {
      merchantId: m.merchantId,
      body: subscriptionBody(m.merchantId, 'sub_d', 'RENEW_FAILED', 1),
      subscriptionId: 'sub_d',
    });
    const e2 = await enqueue(app.ctx, {
      merchantId: m.merchantId,
      body: subscriptionBody(m.merchantId, 'sub_d', 'SUBSCRIPTION_FAILED', 2),
      subscriptionId: 'sub_d',
    });
    rx.answer((r) => (r.body.eventId === e1 ? 500 : 200));
    for (const min of [0, 1, 6, 36, 156, 516]) {
      app.clock.set(t0 + min * MIN);
      await deliverDue(app.ctx);
    }
    expect(rx.received.every((g) => g.body.eventId === e1)).toBe(true);
    app.clock.set(t0 + 1956 * MIN);
    // The last attempt of e1 fails → DEAD, and e2 goes out in the same pass.
    expect(await deliverDue(app.ctx)).toEqual({ delivered: 1, failed: 0, dead: 1 });
    expect(rx.received.at(-1)?.body.eventId).toBe(e2);
    expect((await listEvents(app.ctx, { subscriptionCode: undefined, status: 'DEAD' })).map((e) => e.eventId)).toEqual([
      e1,
    ]);
  });
});
