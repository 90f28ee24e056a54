import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CouponTerms } from '../../src/domain/discount.js';
import { coverOf, type ModelEvent, runModel } from '../helpers/coupon-model.js';

const price = fc.integer({ min: 1, max: 1_000_000_000 });
const terms: fc.Arbitrary<CouponTerms> = fc.record({
  code: fc.constantFrom('A', 'B'),
  off: fc.oneof(
    fc.record({ percentBasisPoints: fc.integer({ min: 1, max: 10_000 }) }),
    fc.record({ amountOff: fc.integer({ min: 1, max: 2_000_000_000 }) }),
  ),
  duration: fc.constantFrom('ONCE', 'REPEATING', 'FOREVER'),
  cycles: fc.integer({ min: 1, max: 5 }),
});
const event: fc.Arbitrary<ModelEvent> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ type: fc.constant('due' as const), paid: fc.boolean() }) },
  { weight: 1, arbitrary: fc.constant({ type: 'pause' as const }) },
  { weight: 1, arbitrary: fc.constant({ type: 'resume' as const }) },
  { weight: 1, arbitrary: fc.record({ type: fc.constant('change' as const), price, paid: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ type: fc.constant('coupon' as const), terms }) },
);
const scenario = fc.record({
  start: fc.record({ price, trial: fc.boolean(), coupon: fc.option(terms, { nil: undefined }) }),
  events: fc.array(event, { maxLength: 60 }),
});

describe('over any sequence of renewals, failures, retries, pauses, resumes, plan changes and coupon changes', () => {
  it('the sum charged is the sum of each charge’s price minus its discount, and no charge is below zero', () => {
    fc.assert(
      fc.property(scenario, ({ start, events }) => {
        const paid = runModel(start, events).charges.filter((c) => c.paid);
        for (const c of paid) {
          expect(c.amount).toBeGreaterThanOrEqual(0);
          expect(c.discountAmount).toBeGreaterThanOrEqual(0);
          expect(c.discountAmount).toBeLessThanOrEqual(c.price);
        }
        const charged = paid.reduce((sum, c) => sum + c.amount, 0);
        expect(charged).toBe(paid.reduce((sum, c) => sum + c.price - c.discountAmount, 0));
      }),
    );
  });

  it('each coupon taken covers exactly the first of its charges its duration allows (REPEATING: its cycles)', () => {
    fc.assert(
      fc.property(scenario, ({ start, events }) => {
        const run = runModel(start, events);
        run.takings.forEach((taking, i) => {
          // A charge belongs to the taking in force when it (a RETRY: its RENEW) was quoted.
          const covered = run.charges.filter((c) => c.paid && c.taking === i).length;
          const quoted = run.charges.filter(
            (c) => c.paid && c.kind !== 'RETRY' && c.at >= taking.at && c.at < (run.takings[i + 1]?.at ?? Infinity),
          );
          const discountable = quoted.filter((c) => !(c.kind === 'INITIAL' && c.price === 0));
          const retriedUnder = run.charges.filter((c) => c.paid && c.kind === 'RETRY' && c.taking === i).length;
          expect(covered).toBe(Math.min(coverOf(taking.terms), discountable.length + retriedUnder));
        });
      }),
      { numRuns: 500 },
    );
  });

  it('a trial’s zero check is never discounted', () => {
    fc.assert(
      fc.property(scenario, ({ start, events }) => {
        const first = runModel({ ...start, trial: true }, events).charges[0];
        expect(first).toMatchObject({ kind: 'INITIAL', amount: 0, discountAmount: 0, couponCode: null });
      }),
    );
  });

  it('coupons change amounts only: the charges, their order and outcomes are the same without them', () => {
    fc.assert(
      fc.property(scenario, ({ start, events }) => {
        const shape = (run: ReturnType<typeof runModel>) => run.charges.map((c) => [c.kind, c.paid, c.at, c.price]);
        const without = runModel(
          { price: start.price, trial: start.trial },
          events.map((e) => (e.type === 'coupon' ? { type: 'idle' as const } : e)),
        );
        expect(shape(runModel(start, events))).toEqual(shape(without));
      }),
    );
  });
});
