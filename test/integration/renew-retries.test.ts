import { afterEach, describe, expect, it } from 'vitest';
import { CLOSED_NOTIFY_URL, testApp, type TestApp } from '../helpers/ctx.js';
import { merchantWithPlan, planCount, records, subRow, subscribe } from '../helpers/subscriptions.js';
import { runRenewal } from '../../src/services/renew/index.js';
import { formatTime, parseTime } from '../../src/domain/time.js';
import { subscriptionDetail } from '../../src/services/subscriptions/index.js';

let app: TestApp;
afterEach(() => app?.close());
const t = (s: string): number => parseTime(s, 'UTC');
const charges = (a: TestApp): number =>
  (a.ctx.sqlite.prepare("SELECT count(*) AS n FROM sandbox_charges WHERE kind = 'charge' AND customer_present = 0").get() as { n: number }).n;
const eventTypes = (a: TestApp, id: string): string[] =>
  (a.ctx.sqlite.prepare('SELECT event_type FROM outbox_events WHERE subscription_id = ? AND kind = ? ORDER BY seq').all(id, 'SUBSCRIPTION') as { event_type: string }[]).map(
    (r) => r.event_type,
  );

describe('retries', () => {
  it('4000000000000341 ends FAILED after exactly 1 + 3 attempts at +1, +3, +5 days', async () => {
    app = testApp({ now: t('2026-01-15 09:00:00') });
    const { ctx, clock } = app;
    const { merchantId, planId } = merchantWithPlan(ctx, {}, { notifyUrl: CLOSED_NOTIFY_URL });
    const sub = await subscribe(ctx, merchantId, planId, { card: '4000000000000341' });
    expect(planCount(ctx, planId)).toBe(1);
    const expectTimes = ['2026-02-15 09:00:00', '2026-02-16 09:00:00', '2026-02-19 09:00:00', '2026-02-24 09:00:00'];
    for (const [i, when] of expectTimes.entries()) {
      expect(subscriptionDetail(ctx, merchantId, sub.subscriptionId).nextBillingTime).toBe(when);
      clock.set(t(when));
      const s = await runRenewal(ctx);
      expect(s).toMatchObject({ due: 1, succeeded: 0, failed: 1, retriesScheduled: i < 3 ? 1 : 0, subscriptionsFailed: i < 3 ? 0 : 1 });
    }
    clock.set(t('2026-06-01 00:00:00'));
    expect((await runRenewal(ctx)).due).toBe(0);
    const recs = records(ctx, sub.subscriptionId);
    expect(recs.map((r) => [r.billing_type, r.status, r.retry_count, r.fail_reason])).toEqual([
      ['INITIAL', 'SUCCESS', 0, null],
      ['RENEW', 'FAILED', 0, 'card_declined'],
      ['RETRY', 'FAILED', 1, 'card_declined'],
      ['RETRY', 'FAILED', 2, 'card_declined'],
      ['RETRY', 'FAILED', 3, 'card_declined'],
    ]);
    expect(recs.every((r) => r.cycle_index <= 1)).toBe(true);
    expect(charges(app)).toBe(4);
    const s = subRow(ctx, sub.subscriptionId);
    expect(s).toMatchObject({ status: 'FAILED', billing_count: 1, failed_count: 4, total_paid: 999, card_id: null, end_time: t('2026-02-24 09:00:00') });
    expect(planCount(ctx, planId)).toBe(0);
    expect(ctx.sqlite.prepare('SELECT count(*) AS n FROM cards').get()).toEqual({ n: 0 });
    expect(subscriptionDetail(ctx, merchantId, sub.subscriptionId).nextBillingTime).toBeUndefined();
    expect(eventTypes(app, sub.subscriptionId)).toEqual(['RENEW_FAILED', 'RENEW_FAILED', 'RENEW_FAILED', 'SUBSCRIPTION_FAILED']);
    const last = JSON.parse((ctx.sqlite.prepare("SELECT payload FROM outbox_events WHERE event_type = 'SUBSCRIPTION_FAILED'").get() as { payload: string }).payload);
    expect(last).toMatchObject({ notifyType: 'SUBSCRIPTION', subscriptionStatus: 'FAILED', recordStatus: 'FAILED', retryCount: '3', failReason: 'card_declined', amount: '9.99' });
    expect(last.nextBillingTime).toBeUndefined();
  });

  it('4000000000000036 recovers on the first retry and keeps the anchor', async () => {
    app = testApp({ now: t('2026-01-31 09:00:00') });
    const { ctx, clock } = app;
    const { merchantId, planId } = merchantWithPlan(ctx, {}, { notifyUrl: CLOSED_NOTIFY_URL });
    const sub = await subscribe(ctx, merchantId, planId, { card: '4000000000000036' });
    clock.set(t('2026-02-28 09:00:00'));
    expect(await runRenewal(ctx)).toMatchObject({ failed: 1, retriesScheduled: 1 });
    clock.set(t('2026-03-01 09:00:00'));
    expect(await runRenewal(ctx)).toMatchObject({ succeeded: 1, failed: 0 });
    // Anchor kept: next is Mar 31 (from the Jan 31 anchor), not Apr 1.
    expect(subscriptionDetail(ctx, merchantId, sub.subscriptionId).nextBillingTime).toBe('2026-03-31 09:00:00');
    clock.set(t('2026-03-31 09:00:00'));
    expect(await runRenewal(ctx)).toMatchObject({ failed: 1, retriesScheduled: 1 });
    clock.set(t('2026-04-01 09:00:00'));
    expect(await runRenewal(ctx)).toMatchObject({ succeeded: 1 });
    const recs = records(ctx, sub.subscriptionId);
    expect(recs.map((r) => [r.billing_type, r.status, r.retry_count, r.cycle_index])).toEqual([
      ['INITIAL', 'SUCCESS', 0, 0],
      ['RENEW', 'FAILED', 0, 1],
      ['RETRY', 'SUCCESS', 1, 1],
      ['RENEW', 'FAILED', 0, 2],
      ['RETRY', 'SUCCESS', 1, 2],
      ['RENEW', 'PENDING', 0, 3],
    ]);
    expect(formatTime(recs[5]?.scheduled_time ?? 0, 'UTC')).toBe('2026-04-30 09:00:00');
    expect(subRow(ctx, sub.subscriptionId)).toMatchObject({ status: 'ACTIVE', billing_count: 3, failed_count: 2, total_paid: 2997 });
    expect(eventTypes(app, sub.subscriptionId)).toEqual(['RENEW_FAILED', 'RENEW_SUCCEEDED', 'RENEW_FAILED', 'RENEW_SUCCEEDED']);
  });

  it('a card that expired by the renewal fails expired_card without calling the channel', async () => {
    app = testApp({ now: t('2026-01-15 09:00:00') });
    const { ctx, clock } = app;
    const { merchantId, planId } = merchantWithPlan(ctx, {}, { notifyUrl: CLOSED_NOTIFY_URL });
    const sub = await subscribe(ctx, merchantId, planId, { month: '01', year: '2026' });
    clock.set(t('2026-02-15 09:00:00'));
    expect(await runRenewal(ctx)).toMatchObject({ failed: 1, retriesScheduled: 1 });
    expect(records(ctx, sub.subscriptionId)[1]).toMatchObject({ status: 'FAILED', fail_reason: 'expired_card' });
    expect(charges(app)).toBe(0);
    const txn = ctx.sqlite.prepare("SELECT status, fail_reason FROM transactions WHERE payment_type = 'RENEWAL'").get();
    expect(txn).toEqual({ status: 300000, fail_reason: 'expired_card' });
  });

  it('honours PAYGATE_RETRY_DAYS', async () => {
    app = testApp({ now: t('2026-01-15 09:00:00'), env: { PAYGATE_RETRY_DAYS: '2,4,6' } });
    const { ctx, clock } = app;
    const { merchantId, planId } = merchantWithPlan(ctx, {}, { notifyUrl: CLOSED_NOTIFY_URL });
    const sub = await subscribe(ctx, merchantId, planId, { card: '4000000000000341' });
    clock.set(t('2026-02-15 09:00:00'));
    await runRenewal(ctx);
    expect(subscriptionDetail(ctx, merchantId, sub.subscriptionId).nextBillingTime).toBe('2026-02-17 09:00:00');
  });
});
