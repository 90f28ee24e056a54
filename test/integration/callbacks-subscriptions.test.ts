import { rowsOf } from '../helpers/rows.js';
import { describe, expect, it } from 'vitest';
import { deliverDue } from '../../src/notify/deliver.js';
import { listEvents } from '../../src/services/events.js';
import { runRenewal } from '../../src/services/renew/index.js';
import { updateMerchant } from '../../src/services/merchants.js';
import type { TestApp } from '../helpers/ctx.js';
import { callbackHarness } from '../helpers/callback-harness.js';
import { verifyV2Callback } from '../helpers/receiver.js';
import { merchantWithPlan, subscribe } from '../helpers/subscriptions.js';

let app: TestApp;
const { rx, open } = callbackHarness();

describe('callbacks of a real subscription', () => {
  it('first charge (PAYMENT) then a renewal (RENEW_SUCCEEDED): delivered by the renewal run, in order, listed per subscription', async () => {
    app = await open();
    const { merchantId, planId } = await merchantWithPlan(app.ctx);
    await updateMerchant(app.ctx, merchantId, { notifyUrl: rx.url('/subs') });
    const sub = await subscribe(app.ctx, merchantId, planId);
    // The renewal is due a month later; the run charges it, then delivers both callbacks on its clock.
    app.clock.set(Date.UTC(2026, 1, 15, 9, 0, 0));
    const summary = await runRenewal(app.ctx, {});
    const outbox = await rowsOf(app.ctx).all(
      'SELECT event_type, status, attempts, last_error FROM outbox_events ORDER BY seq',
    );
    expect(summary, JSON.stringify({ outbox, received: rx.received.length })).toMatchObject({
      succeeded: 1,
      callbacksDelivered: 2,
    });
    expect(rx.received.map((g) => [g.body.notifyType, g.body.eventType])).toEqual([
      ['PAYMENT', undefined],
      ['SUBSCRIPTION', 'RENEW_SUCCEEDED'],
    ]);
    const [first, renewal] = rx.received;
    expect(first?.body).toMatchObject({
      subscriptionId: sub.subscriptionId,
      subscriptionCode: sub.subscriptionCode,
      paymentType: 'SUBSCRIPTION',
      status: '200000',
    });
    expect(renewal?.body).toMatchObject({
      subscriptionId: sub.subscriptionId,
      subscriptionCode: sub.subscriptionCode,
      billingType: 'RENEW',
      recordStatus: 'SUCCESS',
      amount: '9.99',
      retryCount: '0',
      eventTime: '2026-02-15 09:00:00',
      nextBillingTime: '2026-03-15 09:00:00',
    });
    for (const g of rx.received) {
      expect(Object.values(g.body).every((v) => typeof v === 'string')).toBe(true);
      expect(g.rawBody).not.toMatch(/4242424242424242/);
    }
    // Business times above follow the run's clock; the signature's t is the real time of sending.
    const secretRow = (await rowsOf(app.ctx).get('SELECT secret_enc AS s FROM merchants WHERE id = ?', merchantId)) as {
      s: string;
    };
    const secret = app.ctx.vault.decrypt(secretRow.s);
    const signedAt = verifyV2Callback(renewal?.headers['x-paygate-signature'], renewal?.rawBody ?? '', secret);
    // Within a verifier's ±300 s of the receiver's clock (the run's clock is months away).
    expect(Math.abs((signedAt ?? 0) - (renewal?.arrivedAt ?? 0) / 1000)).toBeLessThanOrEqual(300);

    const listed = await listEvents(app.ctx, { subscriptionCode: sub.subscriptionCode, merchantId });
    expect(listed.map((e) => [e.eventType, e.status, e.attempts, e.lastHttpStatus])).toEqual([
      ['RENEW_SUCCEEDED', 'DELIVERED', 1, 200],
      ['PAYMENT', 'DELIVERED', 1, 200],
    ]);
    await expect(listEvents(app.ctx, { subscriptionCode: 'NOPE' })).rejects.toThrow(/subscription not found/);
    await expect(listEvents(app.ctx, { status: 'LOST' as 'DEAD' })).rejects.toThrow(/status/);
  });
});

/**
 * The pass's race, forced (PostgreSQL: a transaction may wait there without holding up the
 * others). An event of a subscription waits for the earlier one; when that earlier delivery
 * finishes while the next claim is running, the claim cannot see it yet. The pass must look
 * again rather than end with the later event due and undelivered.
 */
describe.skipIf(process.env.PAYGATE_TEST_ENGINE !== 'postgres')('the delivery pass and event order', () => {
  it('a delivery that finishes during the next claim does not end the pass before its subscription’s next event', async () => {
    app = await open();
    const { merchantId, planId } = await merchantWithPlan(app.ctx);
    await updateMerchant(app.ctx, merchantId, { notifyUrl: rx.url('/subs') });
    await subscribe(app.ctx, merchantId, planId);
    // The renewal's run delivers nothing: the receiver refuses, the PAYMENT waits for its retry
    // and the RENEW_SUCCEEDED behind it.
    rx.answer(() => 500);
    app.clock.set(Date.UTC(2026, 1, 15, 9, 0, 0));
    expect(await runRenewal(app.ctx, {})).toMatchObject({ succeeded: 1, callbacksDelivered: 0 });
    rx.answer(() => 200);
    rx.received.length = 0;
    app.clock.set(Date.UTC(2026, 1, 15, 9, 5, 0));

    const store = app.ctx.store;
    const transaction = store.transaction.bind(store);
    let claims = 0;
    let secondClaimRan = (): void => {};
    const secondClaim = new Promise<void>((r) => (secondClaimRan = r));
    let firstFinished = (): void => {};
    const finished = new Promise<void>((r) => (firstFinished = r));
    store.transaction = (async (fn: Parameters<typeof transaction>[0]) => {
      const call: { kind: 'claim' | 'finish' | 'other' } = { kind: 'other' };
      const result = await transaction((tx) =>
        fn(
          new Proxy(tx, {
            get(target, key) {
              if (key === 'claimDueEvents') call.kind = 'claim';
              if (key === 'finishAttempt') {
                call.kind = 'finish';
                // The PAYMENT's outcome is recorded only once the second claim has looked.
                return async (...args: Parameters<typeof target.finishAttempt>) => {
                  await secondClaim;
                  return target.finishAttempt(...args);
                };
              }
              const v = Reflect.get(target, key) as unknown;
              return typeof v === 'function' ? v.bind(target) : v;
            },
          }),
        ),
      );
      if (call.kind === 'finish') firstFinished();
      if (call.kind === 'claim' && ++claims === 2) {
        secondClaimRan();
        // …and that claim answers only after the PAYMENT's delivery has wholly finished.
        await finished;
        await new Promise((r) => setTimeout(r, 50));
      }
      return result;
    }) as typeof store.transaction;
    try {
      expect(await deliverDue(app.ctx)).toMatchObject({ delivered: 2, failed: 0 });
    } finally {
      store.transaction = transaction;
    }
    expect(claims).toBeGreaterThanOrEqual(3);
    expect(rx.received.map((g) => g.body.eventType ?? g.body.notifyType)).toEqual(['PAYMENT', 'RENEW_SUCCEEDED']);
  });
});
