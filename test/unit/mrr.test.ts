import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { monthlyRecurring } from '../../src/domain/mrr.js';

describe('monthly recurring revenue', () => {
  it('normalises each cycle to a month', () => {
    expect(monthlyRecurring([{ cycleType: 'MONTHLY', cycleLength: 1, priceSum: 999 }])).toBe(999);
    expect(monthlyRecurring([{ cycleType: 'MONTHLY', cycleLength: 3, priceSum: 3000 }])).toBe(1000);
    expect(monthlyRecurring([{ cycleType: 'YEARLY', cycleLength: 1, priceSum: 12000 }])).toBe(1000);
    expect(monthlyRecurring([{ cycleType: 'WEEKLY', cycleLength: 1, priceSum: 1200 }])).toBe(5200);
    expect(monthlyRecurring([{ cycleType: 'DAILY', cycleLength: 1, priceSum: 100 }])).toBe(3044); // 100 × 365.25 / 12 = 3043.75
  });

  it('rounds once over the sum, half up, not per subscription', () => {
    // three yearly subscriptions of 1.00: 3 × 8.333… = 25 cents, where per-item rounding gives 24
    expect(monthlyRecurring([{ cycleType: 'YEARLY', cycleLength: 1, priceSum: 300 }])).toBe(25);
    expect(
      monthlyRecurring([
        { cycleType: 'YEARLY', cycleLength: 1, priceSum: 100 },
        { cycleType: 'MONTHLY', cycleLength: 12, priceSum: 100 },
        { cycleType: 'WEEKLY', cycleLength: 52, priceSum: 100 },
      ]),
    ).toBe(25);
  });

  it('is zero with no active subscriptions', () => {
    expect(monthlyRecurring([])).toBe(0);
  });

  it('is within half a unit of the exact real sum', () => {
    const group = fc.record({
      cycleType: fc.constantFrom('DAILY' as const, 'WEEKLY' as const, 'MONTHLY' as const, 'YEARLY' as const),
      cycleLength: fc.integer({ min: 1, max: 12 }),
      priceSum: fc.integer({ min: 0, max: 1e9 }),
    });
    fc.assert(
      fc.property(fc.array(group, { maxLength: 10 }), (groups) => {
        const exact = groups.reduce((s, g) => {
          const len = g.cycleType === 'YEARLY' ? 1 : g.cycleLength;
          const f = { MONTHLY: 1, YEARLY: 1 / 12, WEEKLY: 52 / 12, DAILY: 365.25 / 12 }[g.cycleType] / len;
          return s + g.priceSum * f;
        }, 0);
        const fixed = groups.map((g) => (g.cycleType === 'YEARLY' ? { ...g, cycleLength: 1 } : g));
        return Math.abs(monthlyRecurring(fixed) - exact) <= 0.5 + 1e-6 * exact;
      }),
    );
  });
});
