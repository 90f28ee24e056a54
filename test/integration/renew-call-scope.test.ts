import { afterEach, describe, expect, it, vi } from 'vitest';
import { withCallScope } from '../../src/channel/call-scope.js';
import { parseTime } from '../../src/domain/time.js';
import { runRenewal } from '../../src/services/renew/index.js';
import { testApp, type TestApp } from '../helpers/ctx.js';
import { merchantWithPlan, subscribe } from '../helpers/subscriptions.js';

// Counted, not replaced: the scope still works for the runs that enter one.
vi.mock('../../src/channel/call-scope.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../src/channel/call-scope.js')>();
  return { ...actual, withCallScope: vi.fn(actual.withCallScope) };
});

let app: TestApp;
afterEach(async () => {
  vi.mocked(withCallScope).mockClear();
  await app?.close();
});

/**
 * A renewal run's Stripe calls are background work (docs/stripe.md), told to the Stripe layer by
 * a call scope. Entering one makes Node 20 hook every later promise of the process, so a run
 * enters it only when a Stripe call can happen.
 */
describe('the renewal run and the Stripe call scope', () => {
  it('a run for merchants none of whom holds a Stripe key enters no call scope', async () => {
    app = await testApp({ now: parseTime('2026-01-31 09:00:00', 'UTC') });
    const { ctx, clock } = app;
    const { merchantId, planId } = await merchantWithPlan(ctx);
    await subscribe(ctx, merchantId, planId);
    clock.set(parseTime('2026-02-28 09:00:00', 'UTC'));

    expect(await runRenewal(ctx)).toMatchObject({ due: 1, succeeded: 1 });
    expect(withCallScope).not.toHaveBeenCalled();
  });

  it('once a merchant holds a Stripe key, the run does its work in a background scope', async () => {
    app = await testApp({ now: parseTime('2026-01-31 09:00:00', 'UTC') });
    const { ctx, clock } = app;
    const { merchantId, planId } = await merchantWithPlan(ctx);
    await subscribe(ctx, merchantId, planId);
    const other = await merchantWithPlan(ctx);
    await ctx.store.transaction((tx) =>
      tx.updateMerchant(other.merchantId, { stripeSecretKeyEnc: ctx.vault.encrypt('sk_test_scope') }),
    );
    clock.set(parseTime('2026-02-28 09:00:00', 'UTC'));

    expect(await runRenewal(ctx)).toMatchObject({ due: 1, succeeded: 1 });
    expect(withCallScope).toHaveBeenCalledTimes(1);
    expect(vi.mocked(withCallScope).mock.calls[0]?.[0]).toMatchObject({ background: true });
  });
});
