import type { Ctx } from '../../ctx.js';
import { firstBillingAfter } from '../../domain/calendar.js';
import { notAllowed } from '../../domain/errors.js';
import type { BillingRecordRow, SubscriptionRow, Tx } from '../../store/store.js';
import { renewalPrice } from './price.js';
import type { ChangePlanInput } from './request.js';
import { lockForChange, reserveTarget } from './rules.js';
import { changeResult, type ChangeResult } from './view.js';

/**
 * A change at period end: the subscription keeps its plan until the next renewal, which charges
 * the new plan's price and anchors the new calendar on its date (services/renew/record.ts). The
 * new plan's place is taken now, so the renewal can never find it full; asking again for another
 * plan replaces the pending change, asking for the current plan withdraws it.
 */
export async function changeAtPeriodEnd(ctx: Ctx, merchantId: string, req: ChangePlanInput): Promise<ChangeResult> {
  return ctx.store.transaction(async (tx) => {
    const { s, plan } = await lockForChange(tx, merchantId, req.subscriptionId, req.planId);
    const now = ctx.clock.now();
    // The charge that starts the pending plan is with the channel: what it moves to is decided.
    if ((await tx.pendingRecords(s.id)).some((r) => startsPendingPlan(s, r) && r.transactionId !== null))
      throw notAllowed('the renewal that starts the new plan is being charged; change the plan after it');
    let result: ChangeResult['result'] = 'SCHEDULED';
    if (plan.id === s.planId) {
      if (s.pendingPlanId === null) throw notAllowed('the subscription is already on this plan');
      await tx.releasePlanSlot(s.pendingPlanId);
      result = 'UNSCHEDULED';
    } else if (plan.id !== s.pendingPlanId) {
      await reserveTarget(tx, plan);
      if (s.pendingPlanId !== null) await tx.releasePlanSlot(s.pendingPlanId);
    }
    const pendingPlanId = plan.id === s.planId ? null : plan.id;
    await tx.setPendingPlan(s.id, pendingPlanId, now);
    const after: SubscriptionRow = { ...s, pendingPlanId };
    await repriceNextRenewal(tx, after);
    return changeResult(ctx, after, { when: 'PERIOD_END', result, credit: 0, next: await tx.nextBillingTime(s.id) });
  });
}

/**
 * A record priced for another plan than the subscription's: the renewal (or its retry) that moves
 * it to the plan chosen at period end when it is paid (services/renew/record.ts).
 */
function startsPendingPlan(s: SubscriptionRow, r: Pick<BillingRecordRow, 'planId'>): boolean {
  return r.planId !== null && r.planId !== s.planId;
}

/**
 * The records not claimed yet that charge the plan the subscription renews on: the waiting RENEW,
 * and a RETRY of a renewal that was to start a plan chosen at period end (it starts the plan
 * chosen now instead; withdrawn, it retries the current plan). A retry of the current plan's own
 * period charges what its renewal did: the new plan starts with the renewal after it.
 */
async function repriceNextRenewal(tx: Tx, s: SubscriptionRow): Promise<void> {
  for (const r of await tx.pendingRecords(s.id)) {
    if (r.transactionId !== null) continue;
    if (r.billingType === 'RENEW' || (r.billingType === 'RETRY' && startsPendingPlan(s, r)))
      await tx.repriceRecord(r.id, await renewalPrice(tx, s));
  }
}

/** When a plan chosen at period end is first charged, and whether a retry of the old plan comes before. */
export interface NewPlanStart {
  time: number;
  /** A retry of the current period waits first, and it charges the plan its renewal was for. */
  afterRetry: boolean;
}

/**
 * The charge that starts `planId` if the subscription moves to it at period end. The waiting RENEW
 * is repriced for it (above), so it starts then. A waiting RETRY is not: it charges what its
 * renewal did, and when it succeeds the next RENEW is the first anchor date after it
 * (services/renew/record.ts) — that renewal is the new plan's first charge. Only a retry already
 * priced for this very plan (the change was made before its renewal) starts it.
 */
export function newPlanStart(
  s: SubscriptionRow,
  next: Pick<BillingRecordRow, 'billingType' | 'scheduledTime' | 'planId'> | undefined,
  planId: string,
  zone: string,
): NewPlanStart | undefined {
  if (!next) return undefined;
  if (next.billingType !== 'RETRY' || next.planId === planId) return { time: next.scheduledTime, afterRetry: false };
  const cycle = { cycleType: s.cycleType, cycleLength: s.cycleLength };
  return { time: firstBillingAfter(s.anchorTime, cycle, next.scheduledTime, zone).time, afterRetry: true };
}
