import { afterEach, describe, expect, it } from 'vitest';
import { revenueReport } from '../../src/services/report.js';
import { pauseSubscription, resumeSubscription } from '../../src/services/subscriptions/index.js';
import { type TestApp, testApp } from '../helpers/ctx.js';
import { migration } from '../helpers/migrations.js';
import { rowsOf } from '../helpers/rows.js';
import { merchantWithPlan, subscribe } from '../helpers/subscriptions.js';

/**
 * status_changed_at: written by status changes only, and on subscriptions from before the column
 * (the engine's backfill migration run on rows as the release before left them) their updated_at.
 */
let app: TestApp;
afterEach(async () => app?.close());

const at = (month: number, day: number): number => Date.UTC(2026, month - 1, day, 9);

describe('when a subscription last changed status', () => {
  it('moves with subscribe, pause and resume only', async () => {
    app = await testApp({ now: at(1, 10) });
    const { ctx, clock } = app;
    const { merchantId, planId } = await merchantWithPlan(ctx);
    const { subscriptionId } = await subscribe(ctx, merchantId, planId);
    const rows = rowsOf(ctx);
    const changedAt = async () =>
      (
        await rows.get<{ at: number }>(
          'SELECT status_changed_at AS "at" FROM subscriptions WHERE id = ?',
          subscriptionId,
        )
      ).at;
    expect(Number(await changedAt())).toBe(at(1, 10));
    clock.set(at(2, 5));
    await pauseSubscription(ctx, merchantId, { subscriptionId });
    expect(Number(await changedAt())).toBe(at(2, 5));
    clock.set(at(3, 1));
    await resumeSubscription(ctx, merchantId, { subscriptionId });
    expect(Number(await changedAt())).toBe(at(3, 1));
  });

  it('is the last update of a subscription from before the column, so a pause in force still shows', async () => {
    app = await testApp({ now: at(1, 10) });
    const { ctx, clock } = app;
    const { merchantId, planId } = await merchantWithPlan(ctx);
    const { subscriptionId } = await subscribe(ctx, merchantId, planId);
    clock.set(at(2, 5));
    await pauseSubscription(ctx, merchantId, { subscriptionId });
    const rows = rowsOf(ctx);
    await rows.run('UPDATE subscriptions SET status_changed_at = NULL');

    for (const statement of migration('subscription_status_changed_backfill')) await rows.run(statement);

    const row = await rows.get<{ changed: number; updated: number }>(
      'SELECT status_changed_at AS "changed", updated_at AS "updated" FROM subscriptions WHERE id = ?',
      subscriptionId,
    );
    expect(Number(row.changed)).toBe(at(2, 5));
    expect(row.changed).toEqual(row.updated);
    clock.set(at(4, 15));
    const r = await revenueReport(ctx, { merchantId, from: '2026-01', to: '2026-03' });
    expect(r.months.map((m) => m.active)).toEqual([1, 0, 0]);
  });
});
