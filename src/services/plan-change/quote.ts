import { notAllowed } from '../../domain/errors.js';
import { applyCredit, unusedCredit } from '../../domain/proration.js';
import type { ChargeQuote } from '../../domain/discount.js';
import type { PlanRow, Reads, SubscriptionRow } from '../../store/store.js';
import { quoteFor } from '../coupon-charge.js';

/**
 * What a change NOW would charge, priced at `at`: the new plan's price less its coupon's discount,
 * then less the credit for the
 * unused part of the period paid last (as of `at`) and the credit the subscription carries.
 * `basis` names everything but time the figure rests on, so a caller that showed a figure can
 * tell, under the subscription's lock, whether a renewal, a credit or the plan moved since.
 */
export interface ChangeQuote extends ChargeQuote {
  charge: number;
  credit: number;
  basis: string;
}

export async function quoteChange(reads: Reads, s: SubscriptionRow, plan: PlanRow, at: number): Promise<ChangeQuote> {
  const [last] = await reads.pageRecords(s.id, 'SUCCESS', 1, 0);
  // A period not paid (a renewal being retried) or a trial (paid 0) credits nothing.
  const credit =
    !last || s.paidThrough === null
      ? 0
      : unusedCredit(last.amount + last.creditApplied, last.actualTime ?? last.scheduledTime, s.paidThrough, at);
  // The coupon first, then the credit (SPEC §19): a CHANGE charge is discounted and uses a cycle.
  const coupon = await quoteFor(reads, s, plan.id, { kind: 'CHANGE', price: plan.price });
  const { charge } = applyCredit(coupon.amount, credit + s.credit);
  const basis = [s.planId, s.pendingPlanId ?? '', last?.id ?? '', s.paidThrough ?? '', s.credit, plan.id, plan.price];
  basis.push(coupon.couponCode ?? '', coupon.discountAmount, s.couponCyclesUsed);
  return { ...coupon, charge, credit, basis: basis.join('|') };
}

/**
 * A figure the subscriber was shown (the customer portal, SPEC §18): the change charges exactly
 * it, priced at the instant it was drawn, or not at all. Refused with the figure it would be now.
 */
export interface ShownQuote {
  at: number;
  charge: number;
  basis: string;
}

export class QuoteMoved extends Error {
  constructor() {
    super('the amount of this plan change moved since it was shown');
  }
}

/** A change NOW that would charge something other than what was shown: nothing is written. */
export function assertShown(q: ChangeQuote, shown: ShownQuote): void {
  if (q.charge !== shown.charge || q.basis !== shown.basis) throw new QuoteMoved();
}

/** A renewal due or being charged pays the old plan's period: the change comes after it. */
export function renewalInTheWay(
  records: ReadonlyArray<{ transactionId: string | null; scheduledTime: number }>,
  now: number,
): void {
  if (records.some((r) => r.transactionId !== null || r.scheduledTime <= now)) {
    throw notAllowed('a renewal of this subscription is due or being charged; change the plan after it');
  }
}
