import { DateTime } from 'luxon';
import { resolveWallTime, wallTime } from './time.js';

/**
 * The billing calendar (SPEC §6), pure. Billing times are counted from the anchor — the n-th
 * time is anchor + n × cycle in the configured zone's wall clock — never by adding to the
 * previous date: anchor Jan 31 → Feb 28/29 → Mar 31; Feb 29 yearly → Feb 28 in other years;
 * a 09:00 charge stays 09:00 local across DST changes.
 */
export type CycleType = 'DAILY' | 'WEEKLY' | 'MONTHLY' | 'YEARLY';

export interface Cycle {
  cycleType: CycleType;
  cycleLength: number;
}

/** The n-th billing instant after the anchor (n = 0 is the anchor itself). */
export function billingTime(anchorMs: number, cycle: Cycle, n: number, zone: string): number {
  if (zone === 'UTC' || zone === 'Etc/UTC') return billingTimeUtc(anchorMs, cycle, n);
  const w = wallTime(anchorMs, zone);
  // Calendar arithmetic on the wall clock (as if UTC, so no DST inside luxon), then resolve in the zone.
  const base = DateTime.fromObject(w, { zone: 'utc' });
  const k = n * cycle.cycleLength;
  const moved =
    cycle.cycleType === 'DAILY'
      ? base.plus({ days: k })
      : cycle.cycleType === 'WEEKLY'
        ? base.plus({ weeks: k })
        : cycle.cycleType === 'MONTHLY'
          ? base.plus({ months: k }) // luxon clamps to the month's last day: Jan 31 + 1 month = Feb 28/29
          : base.plus({ years: k }); // Feb 29 + 1 year = Feb 28
  return resolveWallTime(
    {
      year: moved.year,
      month: moved.month,
      day: moved.day,
      hour: moved.hour,
      minute: moved.minute,
      second: moved.second,
    },
    zone,
  );
}

const DAY_MS = 86_400_000;

/**
 * The same calendar without luxon for UTC (the default zone; the renewal hot path): no DST, so
 * plain date arithmetic. Whole seconds like the wall-clock path. Equal to the general path
 * (checked by property tests).
 */
function billingTimeUtc(anchorMs: number, cycle: Cycle, n: number): number {
  const base = Math.floor(anchorMs / 1000) * 1000;
  const k = n * cycle.cycleLength;
  if (cycle.cycleType === 'DAILY') return base + k * DAY_MS;
  if (cycle.cycleType === 'WEEKLY') return base + k * 7 * DAY_MS;
  const d = new Date(base);
  const months = d.getUTCMonth() + (cycle.cycleType === 'MONTHLY' ? k : 12 * k);
  const year = d.getUTCFullYear() + Math.floor(months / 12);
  const month = ((months % 12) + 12) % 12;
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  const day = Math.min(d.getUTCDate(), lastDay);
  return Date.UTC(year, month, day, d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds());
}

/** The first cycle index n ≥ 1 whose billing time is strictly after `afterMs`, and that time. */
export function firstBillingAfter(
  anchorMs: number,
  cycle: Cycle,
  afterMs: number,
  zone: string,
): { n: number; time: number } {
  // Estimate from the average cycle length, then correct: cheap even years behind.
  const approxDays = { DAILY: 1, WEEKLY: 7, MONTHLY: 30.436875, YEARLY: 365.2425 }[cycle.cycleType] * cycle.cycleLength;
  let n = Math.max(1, Math.floor((afterMs - anchorMs) / (approxDays * 86_400_000)) - 1);
  while (n > 1 && billingTime(anchorMs, cycle, n - 1, zone) > afterMs) n--;
  while (billingTime(anchorMs, cycle, n, zone) <= afterMs) n++;
  return { n, time: billingTime(anchorMs, cycle, n, zone) };
}

/**
 * Where the billing period that ends at `end` began: the billing time one cycle before it, or
 * undefined when `end` is not a billing time of this calendar. A period is paid for as a whole
 * whenever its charge lands (a retry days later, a late renewal run), so this — not the charge's
 * time — is where its proration starts.
 */
export function periodStartBefore(anchorMs: number, cycle: Cycle, end: number, zone: string): number | undefined {
  if (end <= anchorMs) return undefined;
  const { n, time } = firstBillingAfter(anchorMs, cycle, end - 1, zone);
  return time === end ? billingTime(anchorMs, cycle, n - 1, zone) : undefined;
}

/** Trial end: start + trialDays on the wall clock (same local time of day). */
export function trialEnd(startMs: number, trialDays: number, zone: string): number {
  return billingTime(startMs, { cycleType: 'DAILY', cycleLength: 1 }, trialDays, zone);
}
