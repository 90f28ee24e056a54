import { rowsOf } from '../helpers/rows.js';
import { afterEach, describe, expect, it } from 'vitest';
import { CLOSED_NOTIFY_URL, testApp, type TestApp } from '../helpers/ctx.js';
import { merchantWithPlan, records, subRow, subscribe } from '../helpers/subscriptions.js';
import { runRenewal } from '../../src/services/renew/index.js';
import { billingTime, type CycleType } from '../../src/domain/calendar.js';
import { parseTime } from '../../src/domain/time.js';
import { subscriptionDetail } from '../../src/services/subscriptions/index.js';

let app: TestApp;
afterEach(async () => app?.close());

const ZONE = 'America/New_York';
const START = '2026-01-31 09:00:00';

/**
 * A year of renewals, each run exactly at the next billing time (as `renew --at` would). Daily
 * renewals run for three months instead (89 runs, through the end of February and the spring
 * clock change): a year of them was 365 renewal runs in one test, each issuing an invoice, which
 * took longer than a test may on a loaded machine; WEEKLY and DAILY × 10 cross the autumn change.
 */
describe.each<[CycleType, number]>([
  ['DAILY', 1],
  ['WEEKLY', 1],
  ['MONTHLY', 1],
  ['MONTHLY', 3],
  ['YEARLY', 1],
  ['DAILY', 10],
])('a year of %s × %i renewals', (cycleType, cycleLength) => {
  it('charges every cycle once, on the anchor calendar, and keeps the counters in step', async () => {
    const start = parseTime(START, ZONE);
    app = await testApp({ zone: ZONE, now: start });
    const { ctx, clock } = app;
    const { merchantId, planId } = await merchantWithPlan(
      ctx,
      { cycleType, cycleLength, price: '5.00' },
      { notifyUrl: CLOSED_NOTIFY_URL },
    );
    const sub = await subscribe(ctx, merchantId, planId);
    const cycle = { cycleType, cycleLength };
    const daily = cycleType === 'DAILY' && cycleLength === 1;
    const yearEnd = parseTime(daily ? '2026-04-30 09:00:00' : '2027-01-31 09:00:00', ZONE);
    let runs = 0;
    for (;;) {
      const next = (await subscriptionDetail(ctx, merchantId, sub.subscriptionId)).nextBillingTime;
      expect(next).toBeDefined();
      const t = parseTime(next ?? '', ZONE);
      if (t > yearEnd) break;
      clock.set(t);
      const summary = await runRenewal(ctx);
      expect(summary).toMatchObject({ due: 1, succeeded: 1, failed: 0, retriesScheduled: 0 });
      runs++;
    }
    const recs = await records(ctx, sub.subscriptionId);
    const renews = recs.filter((r) => r.billing_type === 'RENEW');
    expect(recs[0]).toMatchObject({ billing_type: 'INITIAL', status: 'SUCCESS', cycle_index: 0 });
    expect(renews).toHaveLength(runs + 1);
    renews.forEach((r, i) => {
      const n = i + 1;
      expect(r.cycle_index).toBe(n);
      expect(r.scheduled_time).toBe(billingTime(start, cycle, n, ZONE));
      if (i < runs)
        expect(r).toMatchObject({
          status: 'SUCCESS',
          actual_time: r.scheduled_time,
          retry_count: 0,
          fail_reason: null,
          amount: 500,
        });
      else expect(r.status).toBe('PENDING');
    });
    const expectedRuns = daily ? 89 : { DAILY: 365, WEEKLY: 52, MONTHLY: 12, YEARLY: 1 }[cycleType] / cycleLength;
    expect(runs).toBe(Math.floor(expectedRuns));
    const s = await subRow(ctx, sub.subscriptionId);
    expect(s).toMatchObject({
      billing_count: runs + 1,
      failed_count: 0,
      total_paid: (runs + 1) * 500,
      status: 'ACTIVE',
    });
    expect(s.paid_through).toBe(renews[renews.length - 1]?.scheduled_time);
    // Every charge has its RENEWAL transaction, SUCCEEDED, and a RENEW_SUCCEEDED callback.
    const txns = (await rowsOf(ctx).get(
      "SELECT count(*) AS n FROM transactions WHERE payment_type = 'RENEWAL' AND status = 200000 AND subscription_id = ?",
      sub.subscriptionId,
    )) as { n: number };
    expect(txns.n).toBe(runs);
    const events = (await rowsOf(ctx).get(
      "SELECT count(*) AS n FROM outbox_events WHERE event_type = 'RENEW_SUCCEEDED' AND subscription_id = ?",
      sub.subscriptionId,
    )) as { n: number };
    expect(events.n).toBe(runs);
  });
});
