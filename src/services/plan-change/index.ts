import type { Ctx } from '../../ctx.js';
import { requireSubscription } from '../subscriptions/queries.js';
import { changeNow } from './now.js';
import { changeAtPeriodEnd } from './period-end.js';
import { parseChangeRequest } from './request.js';
import type { ChangeResult } from './view.js';

export { CHANGE_PLAN_REQUEST, CHANGE_WHEN, type ChangeWhen } from './request.js';
export type { ChangeResult } from './view.js';
export { newPlanStart, type NewPlanStart } from './period-end.js';

/** POST /subscription/change and `paygate sub change`: move an ACTIVE subscription to another plan, now or at period end. */
export async function changePlan(ctx: Ctx, merchantId: string, input: unknown): Promise<ChangeResult> {
  const req = parseChangeRequest(input);
  await requireSubscription(ctx, merchantId, req.subscriptionId);
  return req.when === 'NOW' ? changeNow(ctx, merchantId, req) : changeAtPeriodEnd(ctx, merchantId, req);
}
