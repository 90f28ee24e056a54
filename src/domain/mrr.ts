import type { Cycle } from './calendar.js';

/**
 * Monthly recurring revenue: each active subscription's price normalised to one month —
 * MONTHLY n → price / n, YEARLY → price / 12, WEEKLY n → price × 52 / 12 / n,
 * DAILY n → price × 365.25 / 12 / n. Factors are kept as exact fractions and the sum is
 * rounded once, at the end, to whole minor units (half up): rounding each subscription would
 * drift by up to half a unit per subscription.
 */
export interface Fraction {
  num: bigint;
  den: bigint;
}

export function monthlyFactor(cycle: Cycle): Fraction {
  const n = BigInt(cycle.cycleLength);
  switch (cycle.cycleType) {
    case 'MONTHLY':
      return { num: 1n, den: n };
    case 'YEARLY':
      return { num: 1n, den: 12n * n };
    case 'WEEKLY':
      return { num: 52n, den: 12n * n };
    case 'DAILY':
      return { num: 36525n, den: 1200n * n };
  }
}

export interface PriceGroup extends Cycle {
  /** Sum of the prices (minor units) of the active subscriptions on this cycle. */
  priceSum: number;
}

/** MRR in minor units of the groups' currency, rounded half up once. */
export function monthlyRecurring(groups: readonly PriceGroup[]): number {
  // Common denominator: every factor's denominator divides 1200 × lcm of the lengths; summing
  // fractions pairwise keeps it exact without needing that bound.
  let num = 0n;
  let den = 1n;
  for (const g of groups) {
    const f = monthlyFactor(g);
    const gNum = BigInt(g.priceSum) * f.num;
    num = num * f.den + gNum * den;
    den = den * f.den;
    const d = gcd(num, den);
    if (d > 1n) {
      num /= d;
      den /= d;
    }
  }
  return Number((2n * num + den) / (2n * den));
}

function gcd(a: bigint, b: bigint): bigint {
  let x = a < 0n ? -a : a;
  let y = b;
  while (y) [x, y] = [y, x % y];
  return x === 0n ? 1n : x;
}
