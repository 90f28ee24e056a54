import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCoupon } from '../../src/services/coupons.js';
import { changePlan } from '../../src/services/plan-change/index.js';
import { createPlan } from '../../src/services/plans.js';
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
 * The real services over generated sequences of renewals, pauses, resumes, immediate plan changes
 * (to 5.00, 10.00 or 15.00) and coupon takings, with one of two cards: …0036 declines every
 * off-session first attempt (each renewal fails and its retry pays; a plan change is declined) and
 * …4242 pays everything (plan changes charge). One database for every run, each run its own merchant, so the property costs
 * runs × steps renewals and no more.
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
  | { type: 'change'; to: Price }
  | {
      type: 'coupon';
      percentOff?: string;
      amountOff?: string;
      duration: 'ONCE' | 'REPEATING' | 'FOREVER';
      cycles?: number;
    };

const PRICES = ['5.00', '10.00', '15.00'] as const;
type Price = (typeof PRICES)[number];

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 4, arbitrary: fc.constant<Step>({ type: 'due' }) },
  fc.constant<Step>({ type: 'pause' }),
  fc.constant<Step>({ type: 'resume' }),
  fc.constantFrom(...PRICES).map((to): Step => ({ type: 'change', to })),
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

const CARD = fc.constantFrom('4000000000000036', '4242424242424242');

let run = 0;
let changesCharged = 0;
const ignoreRefusal = (p: Promise<unknown>) => p.catch(() => undefined);

describe('coupons over any sequence of renewals, retries, pauses, resumes, plan changes and coupon changes', () => {
  // A hundred-odd real renewals and changes per run of the property: more than the default 30 s on a loaded machine.
  it('every charge is its plan’s price less its discount and the credit it spends, never below zero; a RETRY carries its RENEW’s discount; no taking covers more than its duration allows', {
    timeout: 180_000,
  }, async () => {
    await fc.assert(
      fc.asyncProperty(CARD, fc.array(step, { minLength: 1, maxLength: 6 }), async (card, steps) => {
        run++;
        const { ctx, clock } = app;
        const { merchantId, planId } = await merchantWithPlan(ctx, { price: '10.00' });
        const plans = new Map<Price, string>([['10.00', planId]]);
        for (const price of PRICES.filter((p) => !plans.has(p))) {
          const plan = { planName: `P${price}`, price, currency: 'USD', cycleType: 'MONTHLY', cycleLength: 1 };
          plans.set(price, (await createPlan(ctx, merchantId, { ...plan, trialDays: 0, maxSubscriptions: 0 })).planId);
        }
        const priceOf = new Map([...plans].map(([price, id]) => [id, Math.round(Number(price) * 100)]));
        const sub = await subscribe(ctx, merchantId, planId, { card });
        const limits = new Map<string, number>();
        for (const [i, s] of steps.entries()) {
          if (s.type === 'due') {
            const next = (await subscriptionDetail(ctx, merchantId, sub.subscriptionId)).nextBillingTime;
            if (next !== undefined) clock.set(Math.max(clock.now(), parseTime(next, 'UTC')));
            await runRenewal(ctx);
          } else if (s.type === 'pause') await ignoreRefusal(pauseSubscription(ctx, merchantId, sub.subscriptionId));
          else if (s.type === 'resume') await ignoreRefusal(resumeSubscription(ctx, merchantId, sub.subscriptionId));
          else if (s.type === 'change') {
            const change = { subscriptionId: sub.subscriptionId, planId: plans.get(s.to), when: 'NOW' };
            await ignoreRefusal(changePlan(ctx, merchantId, change));
          } else {
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
          expect(r.amount + r.credit_applied + r.discount_amount).toBe(priceOf.get(r.plan_id ?? planId));
        }
        recs.forEach((r, k) => {
          if (r.billing_type !== 'RETRY') return;
          const renew = recs.slice(0, k).findLast((x) => x.billing_type === 'RENEW');
          expect([r.coupon_code, r.discount_amount]).toEqual([renew?.coupon_code, renew?.discount_amount]);
        });
        const paid = recs.filter((r) => r.status === 'SUCCESS');
        changesCharged += paid.filter((r) => r.billing_type === 'CHANGE').length;
        expect((await subRow(ctx, sub.subscriptionId)).total_paid).toBe(paid.reduce((n, r) => n + r.amount, 0));
        for (const [code, limit] of limits)
          expect(paid.filter((r) => r.coupon_code === code).length).toBeLessThanOrEqual(limit);
        // Out of the way of the next runs' renewals.
        await ignoreRefusal(cancelSubscription(ctx, merchantId, sub.subscriptionId));
      }),
      {
        numRuns: 12,
        // Always among the runs: a paid change up and down mid-coupon, then renewals.
        examples: [
          [
            '4242424242424242',
            [
              { type: 'coupon', percentOff: '50.00', duration: 'REPEATING', cycles: 3 },
              { type: 'change', to: '15.00' },
              { type: 'due' },
              { type: 'change', to: '5.00' },
              { type: 'due' },
            ],
          ],
        ],
      },
    );
    // The property reached what it claims: plan changes that charged.
    expect(changesCharged).toBeGreaterThan(0);
  });
});
