/**
 * Which charge a coupon covers and what is charged after it (SPEC §19). Pure: money is integer
 * minor units, instants epoch ms, and nothing here reads a clock or a database.
 *
 * The unit a coupon counts is a paid charge: a REPEATING coupon of n cycles covers the next n
 * charges that are paid. A renewal (its RENEW and the RETRYs after it) is one charge: the RETRY
 * carries the RENEW's discount and the cycle is spent when that renewal is paid, by whichever
 * attempt succeeds. Counting paid charges rather than attempts is the customer's side of a choice
 * the SPEC leaves open: a renewal whose retries are cancelled by a pause, and comes back as a new
 * RENEW on resume, is still discounted, because no discounted period was ever paid.
 */

export type CouponDuration = 'ONCE' | 'REPEATING' | 'FOREVER';

/** Percent off in basis points (hundredths of a percent: 12.5 % → 1250), or an amount off in minor units. */
export type CouponOff = { percentBasisPoints: number } | { amountOff: number };

export interface CouponTerms {
  code: string;
  off: CouponOff;
  duration: CouponDuration;
  /** REPEATING only: how many charges it covers. */
  cycles?: number | undefined;
}

/** The coupon a subscription holds: what it gives, when it was taken, how many paid charges it has covered. */
export interface CouponInForce {
  terms: CouponTerms;
  takenAt: number;
  cyclesUsed: number;
}

export type ChargeKind = 'INITIAL' | 'RENEW' | 'RETRY' | 'CHANGE';

/** The discount a RENEW was charged with, carried by the RETRYs after it. */
export interface CarriedDiscount {
  couponCode: string | null;
  discountAmount: number;
  /** When the RENEW was charged: a coupon taken after it is not the one it carries. */
  renewAt: number;
}

export type ChargeRequest =
  | { kind: 'INITIAL'; price: number; trial: boolean }
  | { kind: 'RENEW' | 'CHANGE'; price: number }
  | { kind: 'RETRY'; price: number; carried: CarriedDiscount };

export interface ChargeQuote {
  price: number;
  /** What the coupon takes off this charge: 0 when none applies. */
  discountAmount: number;
  /** price − discountAmount: never negative. */
  amount: number;
  /** The code of the coupon that discounted this charge, or null. */
  couponCode: string | null;
}

/** Whether the coupon still has a charge to cover. */
export function couponCovers(coupon: CouponInForce): boolean {
  switch (coupon.terms.duration) {
    case 'FOREVER':
      return true;
    case 'ONCE':
      return coupon.cyclesUsed < 1;
    case 'REPEATING':
      return coupon.cyclesUsed < (coupon.terms.cycles ?? 0);
  }
}

/**
 * The discount `off` gives on `price`. A percentage is rounded so that the charge is rounded
 * down (the discount up) to the minor unit: the customer never pays a fraction against them.
 * Never more than the price. BigInt because price × basis points can pass 2^53.
 */
export function discountOn(price: number, off: CouponOff): number {
  assertMinor('price', price);
  if ('amountOff' in off) {
    assertMinor('amountOff', off.amountOff);
    return Math.min(off.amountOff, price);
  }
  const bp = off.percentBasisPoints;
  if (!Number.isInteger(bp) || bp < 1 || bp > 10_000)
    throw new RangeError(`percentBasisPoints must be 1–10000, not ${bp}`);
  const charged = (BigInt(price) * BigInt(10_000 - bp)) / 10_000n; // truncates: the charge rounded down
  return price - Number(charged);
}

/** The charge for one billing record, given the coupon the subscription holds now (or none). */
export function quoteCharge(request: ChargeRequest, coupon: CouponInForce | null): ChargeQuote {
  const { price } = request;
  assertMinor('price', price);
  const none: ChargeQuote = { price, discountAmount: 0, amount: price, couponCode: null };
  if (request.kind === 'RETRY') {
    // A retry charges what its RENEW charged: same discount, same coupon, whatever happened since.
    const discountAmount = Math.min(request.carried.discountAmount, price);
    if (discountAmount === 0 || request.carried.couponCode === null) return none;
    return { price, discountAmount, amount: price - discountAmount, couponCode: request.carried.couponCode };
  }
  if (request.kind === 'INITIAL' && request.trial) return none; // the zero card check: neither discounted nor counted
  if (coupon === null || !couponCovers(coupon)) return none;
  const discountAmount = discountOn(price, coupon.terms.off);
  return { price, discountAmount, amount: price - discountAmount, couponCode: coupon.terms.code };
}

/**
 * The coupon after a charge was paid. A paid charge that the coupon in force discounted spends
 * one of its cycles; a failed one spends none (its RETRY still carries the discount). A RETRY's
 * discount belongs to the taking that was in force at its RENEW: if the subscription has taken a
 * coupon since (even the same code again), the new taking is not spent by the old renewal.
 */
export function afterPaid(
  request: ChargeRequest,
  quote: ChargeQuote,
  coupon: CouponInForce | null,
): CouponInForce | null {
  if (coupon === null || quote.couponCode === null) return coupon;
  if (quote.couponCode !== coupon.terms.code) return coupon;
  if (request.kind === 'RETRY' && coupon.takenAt > request.carried.renewAt) return coupon;
  return { ...coupon, cyclesUsed: coupon.cyclesUsed + 1 };
}

/** Whether the subscription still holds a coupon that will discount a later charge. */
export function couponLasts(coupon: CouponInForce | null): boolean {
  return coupon !== null && couponCovers(coupon);
}

function assertMinor(name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 0)
    throw new RangeError(`${name} must be a non-negative integer, not ${value}`);
}
