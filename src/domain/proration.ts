/**
 * Plan changes that take effect now credit the unused part of the paid period (by time, in
 * minor units, rounded down) and charge the new plan's price minus the credit; a credit larger
 * than the price is carried and spent by the next charges. Pure: instants are epoch ms, money
 * integer minor units.
 *
 * The products below can exceed 2^53 (a 10^12-minor-unit price × a year in ms ≈ 3·10^22), so
 * they are computed in BigInt: a float here would credit a cent too much or too little.
 */

/** The credit for the part of [periodStart, periodEnd) not yet used at `now`; never more than `paid`. */
export function unusedCredit(paid: number, periodStart: number, periodEnd: number, now: number): number {
  if (!Number.isSafeInteger(paid) || paid < 0) throw new RangeError(`paid must be a non-negative integer, not ${paid}`);
  if (periodEnd <= periodStart || now >= periodEnd) return 0;
  if (now <= periodStart) return paid;
  const unused = BigInt(periodEnd - now);
  const length = BigInt(periodEnd - periodStart);
  return Number((BigInt(paid) * unused) / length); // BigInt division truncates: rounded down
}

export interface Charged {
  /** What is charged now: never negative. */
  charge: number;
  /** Credit left over for the next charges: never negative. */
  creditLeft: number;
}

/** A charge of `price` with `credit` available (fresh credit plus any carried balance). */
export function applyCredit(price: number, credit: number): Charged {
  if (!Number.isSafeInteger(price) || price < 0)
    throw new RangeError(`price must be a non-negative integer, not ${price}`);
  if (!Number.isSafeInteger(credit) || credit < 0)
    throw new RangeError(`credit must be a non-negative integer, not ${credit}`);
  return price >= credit ? { charge: price - credit, creditLeft: 0 } : { charge: 0, creditLeft: credit - price };
}
