import {
  afterPaid,
  type CarriedDiscount,
  type ChargeQuote,
  type ChargeRequest,
  type CouponInForce,
  type CouponTerms,
  quoteCharge,
} from '../../src/domain/discount.js';

/**
 * A subscription's charges as SPEC §6, §14 and §19 order them, over the pure discount rules only:
 * the unit tests drive it with scripted and generated events and check the charges it records.
 * Each charge remembers the coupon taking it was quoted under (a RETRY: its RENEW's), so a test
 * can count what each taking covered.
 */
export type ModelEvent =
  | { type: 'due'; paid: boolean }
  | { type: 'pause' }
  | { type: 'resume' }
  | { type: 'change'; price: number; paid: boolean }
  | { type: 'coupon'; terms: CouponTerms }
  /** Time passes and nothing happens: stands in for a coupon event in a run without coupons. */
  | { type: 'idle' };

export interface ModelCharge extends ChargeQuote {
  kind: ChargeRequest['kind'];
  paid: boolean;
  /** The taking in force when this charge (a RETRY: its RENEW) was quoted; -1 for none. */
  taking: number;
  at: number;
}

interface Pending {
  kind: 'RENEW' | 'RETRY';
  retryCount: number;
  carried?: CarriedDiscount & { taking: number };
}

export interface ModelRun {
  charges: ModelCharge[];
  takings: { terms: CouponTerms; at: number }[];
}

export function runModel(
  start: { price: number; trial: boolean; coupon?: CouponTerms },
  events: readonly ModelEvent[],
): ModelRun {
  let t = 0;
  let price = start.price;
  let coupon: CouponInForce | null = null;
  let taking = -1;
  const takings: ModelRun['takings'] = [];
  const charges: ModelCharge[] = [];
  const take = (terms: CouponTerms): void => {
    coupon = { terms, takenAt: t, cyclesUsed: 0 };
    taking = takings.length;
    takings.push({ terms, at: t });
  };
  const charge = (request: ChargeRequest, paid: boolean, quotedUnder: number): ModelCharge => {
    const quote = quoteCharge(request, coupon);
    if (paid) coupon = afterPaid(request, quote, coupon);
    const c = { ...quote, kind: request.kind, paid, taking: quote.couponCode === null ? -1 : quotedUnder, at: t };
    charges.push(c);
    return c;
  };

  if (start.coupon) take(start.coupon);
  charge({ kind: 'INITIAL', price: start.trial ? 0 : price, trial: start.trial }, true, taking); // a trial starts with a zero check
  let status: 'ACTIVE' | 'PAUSED' | 'FAILED' = 'ACTIVE';
  let pending: Pending | null = { kind: 'RENEW', retryCount: 0 };

  for (const e of events) {
    t += 1;
    if (status === 'FAILED') break;
    if (e.type === 'coupon') take(e.terms);
    else if (e.type === 'pause' && status === 'ACTIVE') {
      status = 'PAUSED';
      pending = null;
    } else if (e.type === 'resume' && status === 'PAUSED') {
      status = 'ACTIVE';
      pending = { kind: 'RENEW', retryCount: 0 }; // retries start afresh (§6)
    } else if (e.type === 'change' && status === 'ACTIVE') {
      charge({ kind: 'CHANGE', price: e.price }, e.paid, taking);
      if (e.paid) {
        price = e.price;
        pending = { kind: 'RENEW', retryCount: 0 }; // the new calendar replaces a pending retry
      }
    } else if (e.type === 'due' && status === 'ACTIVE' && pending) {
      if (pending.kind === 'RENEW') {
        const c = charge({ kind: 'RENEW', price }, e.paid, taking);
        pending = e.paid
          ? { kind: 'RENEW', retryCount: 0 }
          : {
              kind: 'RETRY',
              retryCount: 1,
              carried: { couponCode: c.couponCode, discountAmount: c.discountAmount, renewAt: t, taking: c.taking },
            };
      } else if (pending.carried) {
        const carried = pending.carried;
        charge({ kind: 'RETRY', price, carried }, e.paid, carried.taking);
        if (e.paid) pending = { kind: 'RENEW', retryCount: 0 };
        else if (pending.retryCount >= 3) {
          status = 'FAILED';
          pending = null;
        } else pending = { ...pending, retryCount: pending.retryCount + 1 };
      }
    }
  }
  return { charges, takings };
}

/** How many charges a coupon of these terms covers at most. */
export function coverOf(terms: CouponTerms): number {
  return terms.duration === 'FOREVER' ? Number.POSITIVE_INFINITY : terms.duration === 'ONCE' ? 1 : (terms.cycles ?? 0);
}
