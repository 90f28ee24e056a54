import { invalidParam, notAllowed, notFound, PaygateError, RESULT_CODES } from '../../domain/errors.js';
import type { PlanRow, SubscriptionRow, Tx } from '../../store/store.js';
import { withArticle } from '../../domain/words.js';

/**
 * The checks every plan change makes INSIDE its unit of work, on the locked subscription: it is
 * ACTIVE (1008), the plan is this merchant's (1007) in the same currency (1001), and no CHANGE
 * charge of it is under way (1008: two concurrent changes, one wins).
 */
export async function lockForChange(
  tx: Tx,
  merchantId: string,
  subscriptionId: string,
  planId: string,
): Promise<{ s: SubscriptionRow; plan: PlanRow }> {
  const s = await tx.lockSubscription(merchantId, subscriptionId);
  if (!s) throw notFound('subscription');
  if (s.status !== 'ACTIVE') throw notAllowed(`cannot change the plan of ${withArticle(s.status)} subscription`);
  const plan = await tx.getPlan(merchantId, planId);
  if (!plan) throw notFound('plan');
  if (plan.currency !== s.currency)
    throw invalidParam('planId', `the plan is in ${plan.currency}, the subscription in ${s.currency}`);
  if ((await tx.pendingRecords(s.id)).some((r) => r.billingType === 'CHANGE'))
    throw notAllowed('another plan change of this subscription is being charged');
  return { s, plan };
}

/** Take a place on the new plan with the store's conditional write: 1009 when it is inactive or full. */
export async function reserveTarget(tx: Tx, plan: PlanRow): Promise<void> {
  if (await tx.reservePlanSlot(plan.id)) return;
  const reason = plan.status !== 'ACTIVE' ? 'inactive' : 'maxSubscriptions reached';
  throw new PaygateError(RESULT_CODES.PLAN_UNAVAILABLE, `plan not available: ${reason}`);
}
