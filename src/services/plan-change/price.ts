import { applyCredit } from '../../domain/proration.js';
import type { Reads, RecordPrice, SubscriptionRow } from '../../store/store.js';

/**
 * What the subscription's next RENEW charges: the plan a change at period end moves to, if one
 * waits, else its own plan; less the credit it carries. The credit is only earmarked here: it is
 * spent when that charge succeeds, so a cancelled record (a pause) loses nothing.
 */
export async function renewalPrice(reads: Reads, s: SubscriptionRow): Promise<RecordPrice> {
  const pending = s.pendingPlanId !== null ? await reads.getPlan(s.merchantId, s.pendingPlanId) : undefined;
  const planId = pending?.id ?? s.planId;
  const price = pending?.price ?? s.amount;
  const { charge } = applyCredit(price, s.credit);
  return { planId, amount: charge, creditApplied: price - charge };
}
