import {
  afterPaid,
  type ChargeQuote,
  type ChargeRequest,
  type CouponInForce,
  quoteCharge,
} from '../domain/discount.js';
import { applyCredit } from '../domain/proration.js';
import type { CouponRow, Reads, RecordPrice, SubscriptionRow, Tx } from '../store/store.js';
import { couponPlanIds } from './coupons.js';

/**
 * The bridge between the pure discount rules (domain/discount.ts) and the records the services
 * write: which coupon a subscription holds for a charge, what that charge costs, and the cycle a
 * paid charge spends. Every function runs inside the caller's unit of work.
 */

type HeldCoupon = Pick<SubscriptionRow, 'merchantId' | 'couponCode' | 'couponTakenAt' | 'couponCyclesUsed'>;

export function couponTerms(row: CouponRow): CouponInForce['terms'] {
  return {
    code: row.code,
    off:
      row.percentBasisPoints !== null
        ? { percentBasisPoints: row.percentBasisPoints }
        : { amountOff: row.amountOff ?? 0 },
    duration: row.duration,
    cycles: row.cycles ?? undefined,
  };
}

/**
 * The coupon the subscription holds, as the discount rules see it; null when none. A coupon
 * restricted to plans discounts only charges for those plans: after a change to another plan it
 * gives nothing (and spends nothing) until a change back.
 */
export async function couponInForce(reads: Reads, s: HeldCoupon, planId: string): Promise<CouponInForce | null> {
  if (s.couponCode === null || s.couponTakenAt === null) return null;
  const row = await reads.getCoupon(s.merchantId, s.couponCode);
  if (!row) return null;
  const plans = couponPlanIds(row);
  if (plans.length > 0 && !plans.includes(planId)) return null;
  return { terms: couponTerms(row), takenAt: s.couponTakenAt, cyclesUsed: s.couponCyclesUsed };
}

/** The discount on one charge of `planId` at `price` (any charge but a RETRY, which carries its RENEW's). */
export async function quoteFor(
  reads: Reads,
  s: HeldCoupon,
  planId: string,
  request: Exclude<ChargeRequest, { kind: 'RETRY' }>,
): Promise<ChargeQuote> {
  return quoteCharge(request, await couponInForce(reads, s, planId));
}

/**
 * A renewal's price: the coupon's discount first, then the carried credit on what is left
 * (the discount applies before the plan-change credit, so a credit is never spent on money the
 * coupon already took off).
 */
export async function discountedPrice(
  reads: Reads,
  s: HeldCoupon & { credit: number },
  planId: string,
  price: number,
): Promise<RecordPrice> {
  const quote = await quoteFor(reads, s, planId, { kind: 'RENEW', price });
  const { charge } = applyCredit(quote.amount, s.credit);
  return {
    planId,
    amount: charge,
    creditApplied: quote.amount - charge,
    couponCode: quote.couponCode,
    discountAmount: quote.discountAmount,
  };
}

/** A settled record's discount, as the rules that spend cycles read it. */
export interface PaidCharge {
  billingType: 'INITIAL' | 'RENEW' | 'RETRY' | 'CHANGE';
  subscriptionId: string;
  planId: string;
  couponCode: string | null;
  discountAmount: number;
  /** The plan's price this charge paid for (amount + creditApplied + discountAmount). */
  price: number;
  /** RETRY: when the record was due (its RENEW was charged before). */
  scheduledTime: number;
}

/**
 * A paid charge spends a cycle of the coupon that discounted it (SPEC §19) and the subscription's
 * count is written. Returns the cycles used after it, for pricing the next charge in the same unit
 * of work.
 */
export async function spendCouponCycle(tx: Tx, s: HeldCoupon, paid: PaidCharge, now: number): Promise<number> {
  if (paid.couponCode === null || paid.discountAmount === 0) return s.couponCyclesUsed;
  const coupon = await couponInForce(tx, s, paid.planId);
  if (coupon === null) return s.couponCyclesUsed;
  const quote: ChargeQuote = {
    price: paid.price,
    discountAmount: paid.discountAmount,
    amount: paid.price - paid.discountAmount,
    couponCode: paid.couponCode,
  };
  const request: ChargeRequest =
    paid.billingType === 'RETRY'
      ? {
          kind: 'RETRY',
          price: paid.price,
          carried: {
            couponCode: paid.couponCode,
            discountAmount: paid.discountAmount,
            renewAt: (await tx.renewChargedBefore(paid.subscriptionId, paid.scheduledTime)) ?? paid.scheduledTime,
          },
        }
      : paid.billingType === 'INITIAL'
        ? { kind: 'INITIAL', price: paid.price, trial: false }
        : { kind: paid.billingType, price: paid.price };
  const after = afterPaid(request, quote, coupon);
  const used = after?.cyclesUsed ?? s.couponCyclesUsed;
  if (used !== s.couponCyclesUsed) await tx.setCouponCyclesUsed(paid.subscriptionId, used, now);
  return used;
}
