import { rowsOf } from '../helpers/rows.js';
import { describe, expect, it } from 'vitest';
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
