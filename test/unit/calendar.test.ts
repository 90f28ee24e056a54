import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { DateTime } from 'luxon';
import {
  billingTime,
  firstBillingAfter,
  periodStartBefore,
  trialEnd,
  type Cycle,
  type CycleType,
} from '../../src/domain/calendar.js';
import { formatTime, parseTime, wallTime } from '../../src/domain/time.js';

const M1: Cycle = { cycleType: 'MONTHLY', cycleLength: 1 };
const at = (text: string, zone = 'UTC'): number => parseTime(text, zone);
const fmt = (ms: number, zone = 'UTC'): string => formatTime(ms, zone);

describe('billingTime table', () => {
  const cases: [string, string, Cycle, number, string][] = [
    // anchor, zone, cycle, n, expected local time
    ['2026-01-31 09:00:00', 'UTC', M1, 1, '2026-02-28 09:00:00'],
    ['2026-01-31 09:00:00', 'UTC', M1, 2, '2026-03-31 09:00:00'],
    ['2026-01-31 09:00:00', 'UTC', M1, 3, '2026-04-30 09:00:00'],
    ['2028-01-31 09:00:00', 'UTC', M1, 1, '2028-02-29 09:00:00'],
    ['2026-01-30 00:00:00', 'UTC', M1, 1, '2026-02-28 00:00:00'],
    ['2026-01-30 00:00:00', 'UTC', M1, 2, '2026-03-30 00:00:00'],
    ['2028-02-29 12:00:00', 'UTC', { cycleType: 'YEARLY', cycleLength: 1 }, 1, '2029-02-28 12:00:00'],
    ['2028-02-29 12:00:00', 'UTC', { cycleType: 'YEARLY', cycleLength: 1 }, 4, '2032-02-29 12:00:00'],
    ['2026-11-30 08:00:00', 'UTC', { cycleType: 'MONTHLY', cycleLength: 3 }, 1, '2027-02-28 08:00:00'],
    ['2026-11-30 08:00:00', 'UTC', { cycleType: 'MONTHLY', cycleLength: 3 }, 2, '2027-05-30 08:00:00'],
    ['2026-01-01 00:00:00', 'UTC', { cycleType: 'MONTHLY', cycleLength: 12 }, 1, '2027-01-01 00:00:00'],
    ['2026-12-28 23:59:59', 'UTC', { cycleType: 'DAILY', cycleLength: 1 }, 4, '2027-01-01 23:59:59'],
    ['2026-01-01 10:00:00', 'UTC', { cycleType: 'DAILY', cycleLength: 365 }, 1, '2027-01-01 10:00:00'],
    ['2026-01-05 10:00:00', 'UTC', { cycleType: 'WEEKLY', cycleLength: 2 }, 3, '2026-02-16 10:00:00'],
    ['2026-01-05 10:00:00', 'UTC', { cycleType: 'WEEKLY', cycleLength: 52 }, 1, '2027-01-04 10:00:00'],
    // DST: a 09:00 charge stays 09:00 local across the change.
    ['2026-03-01 09:00:00', 'America/New_York', M1, 1, '2026-04-01 09:00:00'],
    ['2026-10-15 09:00:00', 'America/New_York', M1, 1, '2026-11-15 09:00:00'],
    ['2026-03-07 09:00:00', 'America/New_York', { cycleType: 'DAILY', cycleLength: 1 }, 1, '2026-03-08 09:00:00'],
    ['2026-03-20 09:00:00', 'Europe/Berlin', { cycleType: 'WEEKLY', cycleLength: 1 }, 1, '2026-03-27 09:00:00'],
    ['2026-03-20 09:00:00', 'Europe/Berlin', { cycleType: 'WEEKLY', cycleLength: 1 }, 2, '2026-04-03 09:00:00'],
    // A time in the DST gap moves to the first valid instant after it (SPEC §1).
    ['2026-02-28 02:30:00', 'Europe/Berlin', { cycleType: 'DAILY', cycleLength: 1 }, 29, '2026-03-29 03:00:00'],
    ['2026-02-08 02:30:00', 'America/New_York', M1, 1, '2026-03-08 03:00:00'],
    // …and the day after it is back at 02:30.
    ['2026-02-28 02:30:00', 'Europe/Berlin', { cycleType: 'DAILY', cycleLength: 1 }, 30, '2026-03-30 02:30:00'],
  ];
  it.each(cases)('%s %s %o n=%i → %s', async (anchor, zone, cycle, n, expected) => {
    expect(fmt(billingTime(at(anchor, zone), cycle, n, zone), zone)).toBe(expected);
  });

  it('a repeated local time (DST end) is the earlier instant', async () => {
    const t = billingTime(at('2026-09-25 02:30:00', 'Europe/Berlin'), M1, 1, 'Europe/Berlin');
    expect(new Date(t).toISOString()).toBe('2026-10-25T00:30:00.000Z'); // 02:30 CEST, not CET
  });

  it('the offset changes but the local hour does not (New York, March)', async () => {
    const a = at('2026-03-01 09:00:00', 'America/New_York');
    expect(new Date(a).toISOString()).toBe('2026-03-01T14:00:00.000Z');
    expect(new Date(billingTime(a, M1, 1, 'America/New_York')).toISOString()).toBe('2026-04-01T13:00:00.000Z');
  });

  it('trialEnd is start + trialDays at the same local time', async () => {
    expect(
      fmt(trialEnd(at('2026-03-01 09:00:00', 'America/New_York'), 14, 'America/New_York'), 'America/New_York'),
    ).toBe('2026-03-15 09:00:00');
    expect(fmt(trialEnd(at('2026-01-25 10:00:00'), 7, 'UTC'))).toBe('2026-02-01 10:00:00');
  });
});

describe('firstBillingAfter', () => {
  it('is strictly after and counts from the anchor', async () => {
    const a = at('2026-01-31 09:00:00');
    expect(firstBillingAfter(a, M1, a, 'UTC')).toEqual({ n: 1, time: at('2026-02-28 09:00:00') });
    expect(firstBillingAfter(a, M1, at('2026-02-28 09:00:00'), 'UTC').n).toBe(2);
    // Catch-up: five cycles behind → the next anchor date after the run's time.
    expect(fmt(firstBillingAfter(a, M1, at('2026-07-15 00:00:00'), 'UTC').time)).toBe('2026-07-31 09:00:00');
    // Years behind stays cheap and exact.
    expect(fmt(firstBillingAfter(a, M1, at('2046-03-01 00:00:00'), 'UTC').time)).toBe('2046-03-31 09:00:00');
  });
});

describe('periodStartBefore', () => {
  it('is the billing time one cycle before a billing time, month ends and DST included', () => {
    const a = at('2026-01-31 09:00:00');
    expect(fmt(periodStartBefore(a, M1, at('2026-03-31 09:00:00'), 'UTC') ?? 0)).toBe('2026-02-28 09:00:00');
    expect(periodStartBefore(a, M1, at('2026-02-28 09:00:00'), 'UTC')).toBe(a);
    const ny = at('2026-02-08 09:00:00', 'America/New_York');
    const w: Cycle = { cycleType: 'WEEKLY', cycleLength: 1 };
    // The week across the spring-forward night is 167 hours; it still starts at 09:00 local.
    const start = periodStartBefore(ny, w, at('2026-03-15 09:00:00', 'America/New_York'), 'America/New_York');
    expect(fmt(start ?? 0, 'America/New_York')).toBe('2026-03-08 09:00:00');
  });

  it('is undefined for an instant that is not on the calendar, or not after the anchor', () => {
    const a = at('2026-01-31 09:00:00');
    expect(periodStartBefore(a, M1, at('2026-03-15 00:00:00'), 'UTC')).toBeUndefined();
    expect(periodStartBefore(a, M1, a, 'UTC')).toBeUndefined();
  });
});

const ZONES = ['UTC', 'America/New_York', 'Europe/Berlin', 'Australia/Lord_Howe', 'Asia/Kolkata'];
const MAX: Record<CycleType, number> = { DAILY: 365, WEEKLY: 52, MONTHLY: 12, YEARLY: 1 };
const arbCycle = fc
  .constantFrom<CycleType>('DAILY', 'WEEKLY', 'MONTHLY', 'YEARLY')
  .chain((t) => fc.integer({ min: 1, max: MAX[t] }).map((len): Cycle => ({ cycleType: t, cycleLength: len })));
// Anchors between 2020 and 2040, whole seconds.
const arbAnchor = fc
  .integer({ min: Date.UTC(2020, 0, 1) / 1000, max: Date.UTC(2040, 0, 1) / 1000 })
  .map((s) => s * 1000);
const arbZone = fc.constantFrom(...ZONES);

describe('calendar properties', () => {
  it('billing times strictly increase with n', async () => {
    fc.assert(
      fc.property(arbAnchor, arbCycle, arbZone, fc.integer({ min: 0, max: 30 }), (a, c, z, n) => {
        expect(billingTime(a, c, n + 1, z)).toBeGreaterThan(billingTime(a, c, n, z));
      }),
      { numRuns: 300 },
    );
  });

  it('monthly: the day is the anchor day, clamped to the month; the wall time is kept outside DST gaps', async () => {
    fc.assert(
      fc.property(
        arbAnchor,
        fc.integer({ min: 1, max: 12 }),
        arbZone,
        fc.integer({ min: 0, max: 40 }),
        (a, len, z, n) => {
          const w0 = wallTime(a, z);
          const t = billingTime(a, { cycleType: 'MONTHLY', cycleLength: len }, n, z);
          const target = DateTime.fromObject({ year: w0.year, month: w0.month, day: 1 }, { zone: 'utc' }).plus({
            months: n * len,
          });
          const w = wallTime(t, z);
          const inGap = w.hour !== w0.hour || w.minute !== w0.minute;
          if (!inGap) {
            expect([w.year, w.month, w.day]).toEqual([
              target.year,
              target.month,
              Math.min(w0.day, target.daysInMonth ?? 31),
            ]);
            expect(w.second).toBe(w0.second);
          } else {
            // Only a DST gap may move the time, and only forward by at most the gap (≤ 1 h here).
            expect(t - Date.UTC(target.year, target.month - 1, 1)).toBeGreaterThan(0);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('cycleLength L is every L-th time of length 1', async () => {
    fc.assert(
      fc.property(arbAnchor, arbCycle, arbZone, fc.integer({ min: 0, max: 6 }), (a, c, z, n) => {
        expect(billingTime(a, c, n, z)).toBe(
          billingTime(a, { cycleType: c.cycleType, cycleLength: 1 }, n * c.cycleLength, z),
        );
      }),
      { numRuns: 200 },
    );
  });

  it('never drifts: the n-th time depends only on the anchor (Jan 31 → Feb 28 → Mar 31)', async () => {
    fc.assert(
      fc.property(arbAnchor, arbZone, fc.integer({ min: 1, max: 24 }), (a, z, n) => {
        const viaPrev = billingTime(billingTime(a, M1, n - 1, z), M1, 1, z);
        const direct = billingTime(a, M1, n, z);
        // Chaining can only lose days (clamping), never gain them.
        expect(direct).toBeGreaterThanOrEqual(viaPrev - 3_600_000);
      }),
      { numRuns: 200 },
    );
  });

  it('UTC daily and weekly cycles are exact multiples of 24 h', async () => {
    fc.assert(
      fc.property(arbAnchor, fc.integer({ min: 1, max: 52 }), fc.integer({ min: 0, max: 20 }), (a, len, n) => {
        expect(billingTime(a, { cycleType: 'WEEKLY', cycleLength: len }, n, 'UTC')).toBe(a + n * len * 7 * 86_400_000);
        expect(billingTime(a, { cycleType: 'DAILY', cycleLength: len }, n, 'UTC')).toBe(a + n * len * 86_400_000);
      }),
    );
  });

  it('firstBillingAfter gives the smallest n ≥ 1 strictly after the time', async () => {
    fc.assert(
      fc.property(arbAnchor, arbCycle, arbZone, fc.integer({ min: 0, max: 3 * 365 * 86_400 }), (a, c, z, offsetS) => {
        const after = a + offsetS * 1000;
        const { n, time } = firstBillingAfter(a, c, after, z);
        expect(n).toBeGreaterThanOrEqual(1);
        expect(time).toBe(billingTime(a, c, n, z));
        expect(time).toBeGreaterThan(after);
        if (n > 1) expect(billingTime(a, c, n - 1, z)).toBeLessThanOrEqual(after);
      }),
      { numRuns: 300 },
    );
  });
});

describe('UTC fast path', () => {
  it('equals the general wall-clock path', async () => {
    // Etc/GMT has no DST and goes through luxon: the reference for the UTC shortcut.
    fc.assert(
      fc.property(arbAnchor, arbCycle, fc.integer({ min: 0, max: 40 }), (a, c, n) => {
        expect(billingTime(a, c, n, 'UTC')).toBe(billingTime(a, c, n, 'Etc/GMT'));
      }),
      { numRuns: 500 },
    );
  });
});
