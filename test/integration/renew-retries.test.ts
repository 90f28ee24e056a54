import { rowsOf } from '../helpers/rows.js';
import { afterEach, describe, expect, it } from 'vitest';
import { CLOSED_NOTIFY_URL, testApp, type TestApp } from '../helpers/ctx.js';
import { merchantWithPlan, planCount, records, subRow, subscribe } from '../helpers/subscriptions.js';
import { runRenewal } from '../../src/services/renew/index.js';
import { formatTime, parseTime } from '../../src/domain/time.js';
import { subscriptionDetail } from '../../src/services/subscriptions/index.js';

let app: TestApp;
afterEach(async () => app?.close());
const t = (s: string): number => parseTime(s, 'UTC');
const charges = async (a: TestApp): Promise<number> =>
  (
    (await rowsOf(a.ctx).get(
      "SELECT count(*) AS n FROM sandbox_charges WHERE kind = 'charge' AND NOT customer_present",
    )) as { n: number }
  ).n;
const eventTypes = async (a: TestApp, id: string): Promise<string[]> =>
  (
    (await rowsOf(a.ctx).all(
      'SELECT event_type FROM outbox_events WHERE subscription_id = ? AND kind = ? ORDER BY seq',
      id,
      'SUBSCRIPTION',
    )) as { event_type: string }[]
  ).map((r) => r.event_type);

describe('retries', () => {
  it('4000000000000341 ends FAILED after exactly 1 + 3 attempts at +1, +3, +5 days', async () => {
    app = await testApp({ now: t('2026-01-15 09:00:00') });
    const { ctx, clock } = app;
    const { merchantId, planId } = await merchantWithPlan(ctx, {}, { notifyUrl: CLOSED_NOTIFY_URL });
    const sub = await subscribe(ctx, merchantId, planId, { card: '4000000000000341' });
    expect(await planCount(ctx, planId)).toBe(1);
    const expectTimes = ['2026-02-15 09:00:00', '2026-02-16 09:00:00', '2026-02-19 09:00:00', '2026-02-24 09:00:00'];
    for (const [i, when] of expectTimes.entries()) {
      expect((await subscriptionDetail(ctx, merchantId, sub.subscriptionId)).nextBillingTime).toBe(when);
      clock.set(t(when));
      const s = await runRenewal(ctx);
      expect(s).toMatchObject({
        due: 1,
        succeeded: 0,
        failed: 1,
        retriesScheduled: i < 3 ? 1 : 0,
        subscriptionsFailed: i < 3 ? 0 : 1,
      });
    }
    clock.set(t('2026-06-01 00:00:00'));
    expect((await runRenewal(ctx)).due).toBe(0);
    const recs = await records(ctx, sub.subscriptionId);
    expect(recs.map((r) => [r.billing_type, r.status, r.retry_count, r.fail_reason])).toEqual([
      ['INITIAL', 'SUCCESS', 0, null],
      ['RENEW', 'FAILED', 0, 'card_declined'],
      ['RETRY', 'FAILED', 1, 'card_declined'],
      ['RETRY', 'FAILED', 2, 'card_declined'],
      ['RETRY', 'FAILED', 3, 'card_declined'],
    ]);
    expect(recs.every((r) => r.cycle_index <= 1)).toBe(true);
    expect(await charges(app)).toBe(4);
    const s = await subRow(ctx, sub.subscriptionId);
    expect(s).toMatchObject({
      status: 'FAILED',
      billing_count: 1,
      failed_count: 4,
      total_paid: 999,
      card_id: null,
      end_time: t('2026-02-24 09:00:00'),
    });
    expect(await planCount(ctx, planId)).toBe(0);
    expect(await rowsOf(ctx).get('SELECT count(*) AS n FROM cards')).toEqual({ n: 0 });
    expect((await subscriptionDetail(ctx, merchantId, sub.subscriptionId)).nextBillingTime).toBeUndefined();
    expect(await eventTypes(app, sub.subscriptionId)).toEqual([
      'RENEW_FAILED',
      'RENEW_FAILED',
      'RENEW_FAILED',
      'SUBSCRIPTION_FAILED',
    ]);
    const last = JSON.parse(
      (
        (await rowsOf(ctx).get("SELECT payload FROM outbox_events WHERE event_type = 'SUBSCRIPTION_FAILED'")) as {
          payload: string;
        }
      ).payload,
    );
    expect(last).toMatchObject({
      notifyType: 'SUBSCRIPTION',
      subscriptionStatus: 'FAILED',
      recordStatus: 'FAILED',
      retryCount: '3',
      failReason: 'card_declined',
      amount: '9.99',
    });
    expect(last.nextBillingTime).toBeUndefined();
  });

  it('4000000000000036 recovers on the first retry and keeps the anchor', async () => {
    app = await testApp({ now: t('2026-01-31 09:00:00') });
    const { ctx, clock } = app;
    const { merchantId, planId } = await merchantWithPlan(ctx, {}, { notifyUrl: CLOSED_NOTIFY_URL });
    const sub = await subscribe(ctx, merchantId, planId, { card: '4000000000000036' });
    clock.set(t('2026-02-28 09:00:00'));
    expect(await runRenewal(ctx)).toMatchObject({ failed: 1, retriesScheduled: 1 });
    clock.set(t('2026-03-01 09:00:00'));
    expect(await runRenewal(ctx)).toMatchObject({ succeeded: 1, failed: 0 });
    // Anchor kept: next is Mar 31 (from the Jan 31 anchor), not Apr 1.
    expect((await subscriptionDetail(ctx, merchantId, sub.subscriptionId)).nextBillingTime).toBe('2026-03-31 09:00:00');
    clock.set(t('2026-03-31 09:00:00'));
    expect(await runRenewal(ctx)).toMatchObject({ failed: 1, retriesScheduled: 1 });
    clock.set(t('2026-04-01 09:00:00'));
    expect(await runRenewal(ctx)).toMatchObject({ succeeded: 1 });
    const recs = await records(ctx, sub.subscriptionId);
    expect(recs.map((r) => [r.billing_type, r.status, r.retry_count, r.cycle_index])).toEqual([
      ['INITIAL', 'SUCCESS', 0, 0],
      ['RENEW', 'FAILED', 0, 1],
      ['RETRY', 'SUCCESS', 1, 1],
      ['RENEW', 'FAILED', 0, 2],
      ['RETRY', 'SUCCESS', 1, 2],
      ['RENEW', 'PENDING', 0, 3],
    ]);
    expect(formatTime(recs[5]?.scheduled_time ?? 0, 'UTC')).toBe('2026-04-30 09:00:00');
    expect(await subRow(ctx, sub.subscriptionId)).toMatchObject({
      status: 'ACTIVE',
      billing_count: 3,
      failed_count: 2,
      total_paid: 2997,
    });
    expect(await eventTypes(app, sub.subscriptionId)).toEqual([
      'RENEW_FAILED',
      'RENEW_SUCCEEDED',
      'RENEW_FAILED',
      'RENEW_SUCCEEDED',
    ]);
  });

  it('a card that expired by the renewal fails expired_card without calling the channel', async () => {
    app = await testApp({ now: t('2026-01-15 09:00:00') });
    const { ctx, clock } = app;
    const { merchantId, planId } = await merchantWithPlan(ctx, {}, { notifyUrl: CLOSED_NOTIFY_URL });
    const sub = await subscribe(ctx, merchantId, planId, { month: '01', year: '2026' });
    clock.set(t('2026-02-15 09:00:00'));
    expect(await runRenewal(ctx)).toMatchObject({ failed: 1, retriesScheduled: 1 });
    expect((await records(ctx, sub.subscriptionId))[1]).toMatchObject({
      status: 'FAILED',
      fail_reason: 'expired_card',
    });
    expect(await charges(app)).toBe(0);
    const txn = await rowsOf(ctx).get("SELECT status, fail_reason FROM transactions WHERE payment_type = 'RENEWAL'");
    expect(txn).toEqual({ status: 300000, fail_reason: 'expired_card' });
  });

  it('honours PAYGATE_RETRY_DAYS', async () => {
    app = await testApp({ now: t('2026-01-15 09:00:00'), env: { PAYGATE_RETRY_DAYS: '2,4,6' } });
    const { ctx, clock } = app;
    const { merchantId, planId } = await merchantWithPlan(ctx, {}, { notifyUrl: CLOSED_NOTIFY_URL });
    const sub = await subscribe(ctx, merchantId, planId, { card: '4000000000000341' });
    clock.set(t('2026-02-15 09:00:00'));
    await runRenewal(ctx);
    expect((await subscriptionDetail(ctx, merchantId, sub.subscriptionId)).nextBillingTime).toBe('2026-02-17 09:00:00');
  });
});
