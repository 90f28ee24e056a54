import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCoupon } from '../../src/services/coupons.js';
import { runRenewal } from '../../src/services/renew/index.js';
import {
  cancelSubscription,
  pauseSubscription,
  resumeSubscription,
  subscriptionDetail,
} from '../../src/services/subscriptions/index.js';
import { takeCoupon } from '../../src/services/take-coupon.js';
import { parseTime } from '../../src/domain/time.js';
import { testApp, type TestApp } from '../helpers/ctx.js';
import { merchantWithPlan, records, subRow, subscribe } from '../helpers/subscriptions.js';

/**
 * The real services over generated sequences of renewals (each first attempt declined, its retry
 * paid: card …0036), pauses, resumes and coupon takings. One database for every run, each run its
 * own merchant, so the property costs runs × steps renewals and no more.
 */
let app: TestApp;
beforeAll(async () => {
  app = await testApp({ now: parseTime('2026-01-15 09:00:00', 'UTC') });
});
afterAll(async () => app?.close());

type Step =
  | { type: 'due' }
  | { type: 'pause' }
  | { type: 'resume' }
  | {
      type: 'coupon';
      percentOff?: string;
      amountOff?: string;
      duration: 'ONCE' | 'REPEATING' | 'FOREVER';
      cycles?: number;
    };

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 4, arbitrary: fc.constant<Step>({ type: 'due' }) },
  fc.constant<Step>({ type: 'pause' }),
  fc.constant<Step>({ type: 'resume' }),
  {
    weight: 2,
    arbitrary: fc
      .record({
        type: fc.constant('coupon' as const),
        off: fc.oneof(
          fc.integer({ min: 1, max: 10_000 }).map((bp) => ({ percentOff: (bp / 100).toFixed(2) })),
          fc.integer({ min: 1, max: 1500 }).map((c) => ({ amountOff: (c / 100).toFixed(2) })),
        ),
        duration: fc.constantFrom('ONCE' as const, 'REPEATING' as const, 'FOREVER' as const),
        cycles: fc.integer({ min: 1, max: 3 }),
      })
      .map(
        ({ off, duration, cycles, type }): Step => ({
          type,
          ...off,
          duration,
          ...(duration === 'REPEATING' ? { cycles } : {}),
        }),
      ),
  },
);

let run = 0;
const ignoreRefusal = (p: Promise<unknown>) => p.catch(() => undefined);

describe('coupons over any sequence of renewals, retries, pauses, resumes and coupon changes', () => {
  it('every charge is its price less its discount, never below zero; a RETRY carries its RENEW’s discount; no taking covers more than its duration allows', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 6 }), async (steps) => {
        run++;
        const { ctx, clock } = app;
        const { merchantId, planId } = await merchantWithPlan(ctx, { price: '10.00' });
        const sub = await subscribe(ctx, merchantId, planId, { card: '4000000000000036' });
        const limits = new Map<string, number>();
        for (const [i, s] of steps.entries()) {
          if (s.type === 'due') {
            const next = (await subscriptionDetail(ctx, merchantId, sub.subscriptionId)).nextBillingTime;
            if (next !== undefined) clock.set(Math.max(clock.now(), parseTime(next, 'UTC')));
            await runRenewal(ctx);
          } else if (s.type === 'pause') await ignoreRefusal(pauseSubscription(ctx, merchantId, sub.subscriptionId));
          else if (s.type === 'resume') await ignoreRefusal(resumeSubscription(ctx, merchantId, sub.subscriptionId));
          else {
            const { type: _, ...terms } = s;
            const code = `P${run}x${i}`;
            await createCoupon(ctx, merchantId, { code, ...terms });
            limits.set(code, s.duration === 'ONCE' ? 1 : s.duration === 'REPEATING' ? (s.cycles ?? 0) : Infinity);
            await ignoreRefusal(takeCoupon(ctx, merchantId, { subscriptionId: sub.subscriptionId, couponCode: code }));
          }
          clock.set(clock.now() + 60_000);
        }
        const recs = await records(ctx, sub.subscriptionId);
        for (const r of recs) {
          expect(r.amount).toBeGreaterThanOrEqual(0);
          expect(r.amount + r.credit_applied + r.discount_amount).toBe(1000);
        }
        recs.forEach((r, k) => {
          if (r.billing_type !== 'RETRY') return;
          const renew = recs.slice(0, k).findLast((x) => x.billing_type === 'RENEW');
          expect([r.coupon_code, r.discount_amount]).toEqual([renew?.coupon_code, renew?.discount_amount]);
        });
        const paid = recs.filter((r) => r.status === 'SUCCESS');
        expect((await subRow(ctx, sub.subscriptionId)).total_paid).toBe(paid.reduce((n, r) => n + r.amount, 0));
        for (const [code, limit] of limits)
          expect(paid.filter((r) => r.coupon_code === code).length).toBeLessThanOrEqual(limit);
        // Out of the way of the next runs' renewals.
        await ignoreRefusal(cancelSubscription(ctx, merchantId, sub.subscriptionId));
      }),
      { numRuns: 12 },
    );
  });
});
