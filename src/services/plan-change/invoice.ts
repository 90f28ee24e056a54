import type { Ctx } from '../../ctx.js';
import type { DocumentFields } from '../../notify/payloads.js';
import type { BillingRecordRow, SubscriptionRow, Tx } from '../../store/store.js';
import { discountOf, factsOf, issueInvoice } from '../documents/issue.js';

/** The CHANGE charge's invoice: the new plan from now, less the old plan's unused time and any discount. */
export async function changeInvoice(
  ctx: Ctx,
  tx: Tx,
  record: BillingRecordRow,
  s: SubscriptionRow,
  paidThrough: number,
  now: number,
): Promise<DocumentFields | undefined> {
  const txn = record.transactionId ? await tx.getTransaction(record.transactionId) : undefined;
  if (!txn || !record.planId) return undefined;
  // In the order they apply (SPEC §19): the coupon's discount off the price, then the credit.
  const reductions = [
    ...discountOf(record),
    { description: 'Credit for unused time on the previous plan', amount: record.creditApplied },
  ];
  return issueInvoice(
    ctx,
    tx,
    { ...factsOf(txn, s.code), subscriber: s },
    { planId: record.planId, from: now, to: paidThrough, reductions },
    now,
  );
}
