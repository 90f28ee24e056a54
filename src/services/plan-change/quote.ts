import { periodStartBefore } from '../../domain/calendar.js';
import { notAllowed } from '../../domain/errors.js';
import { applyCredit, unusedCredit } from '../../domain/proration.js';
import type { ChargeQuote } from '../../domain/discount.js';
import type { BillingRecordRow, PlanRow, Reads, SubscriptionRow, Tx } from '../../store/store.js';
import { quoteFor } from '../coupon-charge.js';

/**
 * What a change NOW would charge, priced at `at`: the new plan's price less its coupon's discount,
 * then less the credit for the unused part of the period paid last (as of `at`, on what was
 * actually paid for it: refunds taken off) and the credit the subscription carries.
 * `basis` names everything but time the figure rests on, so a caller that showed a figure can
 * tell, under the subscription's lock, whether a renewal, a credit or the plan moved since.
 */
export interface ChangeQuote extends ChargeQuote {
  charge: number;
  credit: number;
  basis: string;
}

export async function quoteChange(
  reads: Reads & Partial<Pick<Tx, 'lockTransaction'>>,
  s: SubscriptionRow,
  plan: PlanRow,
  at: number,
  zone: string,
): Promise<ChangeQuote> {
  const [last] = await reads.pageRecords(s.id, 'SUCCESS', 1, 0);
  const refunded = last?.transactionId ? await refundedOf(reads, last.transactionId) : 0;
  // A period not paid (a renewal being retried) or a trial (paid 0) credits nothing.
  const credit =
    !last || s.paidThrough === null
      ? 0
      : unusedCredit(paidFor(last, refunded), periodStart(s, last, s.paidThrough, zone), s.paidThrough, at);
  // The coupon first, then the credit (SPEC §19): a CHANGE charge is discounted and uses a cycle.
  const coupon = await quoteFor(reads, s, plan.id, { kind: 'CHANGE', price: plan.price });
  const { charge } = applyCredit(coupon.amount, credit + s.credit);
  const basis = [s.planId, s.pendingPlanId ?? '', last?.id ?? '', refunded, s.paidThrough ?? '', s.credit, plan.id];
  basis.push(plan.price, coupon.couponCode ?? '', coupon.discountAmount, s.couponCyclesUsed);
  return { ...coupon, charge, credit, basis: basis.join('|') };
}

/**
 * The start of the period paid through `end`: one cycle of the calendar before it, however late its
 * charge came (a retry pays for the whole period its renewal was for, as its invoice says). A
 * period off the calendar (none is written so) starts when it was charged.
 */
function periodStart(s: SubscriptionRow, last: BillingRecordRow, end: number, zone: string): number {
  return periodStartBefore(s.anchorTime, s, end, zone) ?? last.actualTime ?? last.scheduledTime;
}

/**
 * What the last period was actually paid (SPEC §19): its charge less what was refunded of it, or
 * is being refunded (a refund still PENDING is counted as refunded: it most likely will be), plus
 * the credit it spent (money paid for earlier periods, which no refund of this charge returns).
 */
function paidFor(last: BillingRecordRow, refunded: number): number {
  return Math.max(0, last.amount - refunded) + last.creditApplied;
}

/**
 * Refunded or reserved for a refund of the charge. Inside a unit of work the row is locked, so a
 * refund of it runs before this change or after it, never across it.
 */
async function refundedOf(reads: Reads & Partial<Pick<Tx, 'lockTransaction'>>, id: string): Promise<number> {
  const txn = reads.lockTransaction ? await reads.lockTransaction(id) : await reads.getTransaction(id);
  return txn ? txn.refundedAmount + txn.refundReserved : 0;
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
