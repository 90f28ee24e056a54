import { afterEach, describe, expect, it } from 'vitest';
import { testApp, type TestApp } from '../helpers/ctx.js';
import { merchantWithPlan, records, subscribe } from '../helpers/subscriptions.js';
import { parseTime } from '../../src/domain/time.js';
import { claimNextBatch } from '../../src/services/renew/claim.js';
import { recordOutcomes, type Answered } from '../../src/services/renew/record-batch.js';
import { runRenewal } from '../../src/services/renew/index.js';

let app: TestApp;
afterEach(async () => app?.close());

/** Three subscriptions whose first renewal is due, claimed the way a run claims them. */
async function claimedThree() {
  app = await testApp({ now: parseTime('2026-01-31 09:00:00', 'UTC') });
  const { ctx, clock } = app;
  const { merchantId, planId } = await merchantWithPlan(ctx);
  const subs = [];
  for (let i = 0; i < 3; i++) subs.push(await subscribe(ctx, merchantId, planId, { userId: `u${i}` }));
  clock.set(parseTime('2026-02-28 09:00:00', 'UTC'));
  const now = ctx.clock.now();
  const { claimed } = await claimNextBatch(ctx, { cutoff: now, limit: 10, cursor: null }, 'test-run', now);
  const bySub = subs.map((s) => {
    const rec = claimed.find((c) => c.subscriptionId === s.subscriptionId);
    if (!rec) throw new Error(`no claimed record for ${s.subscriptionId}`);
    return rec;
  });
  return { ctx, subs, claimed: bySub };
}

describe("a renewal batch's outcomes", () => {
  it('are recorded together: every record settled, every subscription rescheduled', async () => {
    const { ctx, subs, claimed } = await claimedThree();
    const answered: Answered[] = claimed.map((rec, i) => ({ rec, outcome: { approved: true, ref: `ch_${i}` } }));
    const results = await recordOutcomes(ctx, answered);
    expect(results).toEqual(Array(3).fill({ status: 'fulfilled', value: 'succeeded' }));
    for (const s of subs) {
      expect((await records(ctx, s.subscriptionId)).map((r) => [r.billing_type, r.status])).toEqual([
        ['INITIAL', 'SUCCESS'],
        ['RENEW', 'SUCCESS'],
        ['RENEW', 'PENDING'],
      ]);
    }
  });

  it('one record that cannot be recorded fails alone: the others are recorded, it stays claimed', async () => {
    const { ctx, subs, claimed } = await claimedThree();
    const [a, b, c] = claimed as [Answered['rec'], Answered['rec'], Answered['rec']];
    const answered: Answered[] = [
      { rec: a, outcome: { approved: true, ref: 'ch_a' } },
      // Not a number: the database refuses the subscription's new total (NOT NULL / bigint).
      { rec: { ...b, amount: Number.NaN }, outcome: { approved: true, ref: 'ch_b' } },
      { rec: c, outcome: { approved: false, reason: 'card_declined', ref: 'ch_c' } },
    ];
    const results = await recordOutcomes(ctx, answered);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(results[2]).toEqual({ status: 'fulfilled', value: 'retry_scheduled' });
    const [sa, sb, sc] = subs as [(typeof subs)[0], (typeof subs)[0], (typeof subs)[0]];
    expect((await records(ctx, sa.subscriptionId)).map((r) => r.status)).toEqual(['SUCCESS', 'SUCCESS', 'PENDING']);
    expect((await records(ctx, sc.subscriptionId)).map((r) => [r.billing_type, r.status])).toEqual([
      ['INITIAL', 'SUCCESS'],
      ['RENEW', 'FAILED'],
      ['RETRY', 'PENDING'],
    ]);
    // Nothing of the failed one was written: still PENDING under this run's lease, charged again
    // (same key, so the same charge) by the run after the lease.
    const left = await records(ctx, sb.subscriptionId);
    expect(left.map((r) => r.status)).toEqual(['SUCCESS', 'PENDING']);
    expect(left[1]).toMatchObject({ lease_owner: 'test-run' });
  });

  it('a whole run over many due subscriptions charges and records each once', async () => {
    app = await testApp({ now: parseTime('2026-01-31 09:00:00', 'UTC') });
    const { ctx, clock } = app;
    const { merchantId, planId } = await merchantWithPlan(ctx);
    const subs = [];
    for (let i = 0; i < 40; i++)
      subs.push(
        await subscribe(ctx, merchantId, planId, {
          userId: `u${i}`,
          ...(i % 4 === 0 ? { card: '4000000000000341' } : {}),
        }),
      );
    clock.set(parseTime('2026-02-28 09:00:00', 'UTC'));
    expect(await runRenewal(ctx)).toMatchObject({ due: 40, succeeded: 30, failed: 10, retriesScheduled: 10 });
    expect(await runRenewal(ctx)).toMatchObject({ due: 0 });
  });
});
