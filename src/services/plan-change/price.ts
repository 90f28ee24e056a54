import type { Reads, RecordPrice, SubscriptionRow } from '../../store/store.js';
import { discountedPrice } from '../coupon-charge.js';

/**
 * What the subscription's next RENEW charges: the plan a change at period end moves to, if one
 * waits, else its own plan; less the coupon's discount, then the credit it carries. The credit is
 * only earmarked here: it is spent when that charge succeeds, so a cancelled record (a pause)
 * loses nothing; so is the coupon's cycle.
 */
export async function renewalPrice(reads: Reads, s: SubscriptionRow): Promise<RecordPrice> {
  const pending = s.pendingPlanId !== null ? await reads.getPlan(s.merchantId, s.pendingPlanId) : undefined;
  return discountedPrice(reads, s, pending?.id ?? s.planId, pending?.price ?? s.amount);
}
