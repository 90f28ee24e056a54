import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyCredit, unusedCredit } from '../../src/domain/proration.js';

const DAY = 86_400_000;
const START = Date.UTC(2026, 0, 1);
const END = Date.UTC(2026, 1, 1); // 31 days

describe('unused credit of the paid period', () => {
  it('is the unused share of what was paid, rounded down', () => {
    expect(unusedCredit(3100, START, END, START + 10 * DAY)).toBe(2100);
    expect(unusedCredit(1000, START, END, START + DAY)).toBe(967); // 1000 × 30/31 = 967.74…
  });

  it('is everything before the period starts and nothing once it has ended', () => {
    expect(unusedCredit(999, START, END, START - 1)).toBe(999);
    expect(unusedCredit(999, START, END, END)).toBe(0);
    expect(unusedCredit(999, START, END, END + DAY)).toBe(0);
  });

  it('stays exact where floating point would not (a large price over a year)', () => {
    const yearEnd = Date.UTC(2027, 0, 1);
    const paid = 999_999_999_999;
    const now = START + 1;
    const exact = (BigInt(paid) * BigInt(yearEnd - now)) / BigInt(yearEnd - START);
    expect(unusedCredit(paid, START, yearEnd, now)).toBe(Number(exact));
  });

  it('is never negative and never more than was paid', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1e12 }),
        fc.integer({ min: 1, max: 366 * DAY }),
        fc.integer({ min: -DAY, max: 400 * DAY }),
        (paid, length, offset) => {
          const credit = unusedCredit(paid, START, START + length, START + offset);
          return Number.isSafeInteger(credit) && credit >= 0 && credit <= paid;
        },
      ),
    );
  });

  it('shrinks as the period is used', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1e9 }),
        fc.integer({ min: 0, max: 31 * DAY }),
        fc.integer({ min: 0, max: 31 * DAY }),
        (paid, a, b) => {
          const [early, late] = a <= b ? [a, b] : [b, a];
          return unusedCredit(paid, START, END, START + early) >= unusedCredit(paid, START, END, START + late);
        },
      ),
    );
  });
});

describe('a charge with credit', () => {
  it('charges the price minus the credit', () => {
    expect(applyCredit(2000, 500)).toEqual({ charge: 1500, creditLeft: 0 });
  });

  it('keeps a credit larger than the price for the next charges and charges nothing', () => {
    expect(applyCredit(500, 2000)).toEqual({ charge: 0, creditLeft: 1500 });
  });

  it('refuses negative or fractional money', () => {
    expect(() => applyCredit(-1, 0)).toThrow(RangeError);
    expect(() => applyCredit(10, 0.5)).toThrow(RangeError);
  });

  it('over any sequence of changes: no negative charge, and charges − credit left = prices − credits granted', () => {
    const step = fc.record({
      price: fc.integer({ min: 0, max: 1e9 }),
      paid: fc.integer({ min: 0, max: 1e9 }),
      used: fc.double({ min: 0, max: 1, noNaN: true }),
    });
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 20 }), (steps) => {
        let carried = 0;
        let charged = 0;
        let granted = 0;
        let prices = 0;
        for (const s of steps) {
          const credit = unusedCredit(s.paid, START, END, START + Math.floor(s.used * (END - START)));
          if (credit > s.paid) return false;
          const r = applyCredit(s.price, credit + carried);
          if (r.charge < 0 || r.creditLeft < 0) return false;
          charged += r.charge;
          granted += credit;
          prices += s.price;
          carried = r.creditLeft;
        }
        return charged - carried === prices - granted;
      }),
    );
  });
});
