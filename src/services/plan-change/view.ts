import type { Ctx } from '../../ctx.js';
import { amountNumber } from '../../domain/money.js';
import { formatTime } from '../../domain/time.js';
import type { BillingRecordRow, SubscriptionRow } from '../../store/store.js';
import { billingRecordView, type BillingRecordView } from '../subscriptions/views.js';
import type { ChangeWhen } from './request.js';

/**
 * What a plan change answers. `result`: CHANGED (the new plan is in force), SCHEDULED (it takes
 * over at the next renewal), UNSCHEDULED (a pending change was withdrawn by asking for the
 * current plan), DECLINED (the CHANGE charge was declined: the old plan stays), ENDED (the
 * subscription was cancelled while the charge ran: the charge counts, the plan did not move),
 * PENDING (Stripe has not answered the CHANGE charge yet: nothing moved; the renewal run records
 * the outcome from Stripe's own answer).
 */
export interface ChangeResult {
  subscriptionId: string;
  subscriptionCode: string;
  when: ChangeWhen;
  result: 'CHANGED' | 'SCHEDULED' | 'UNSCHEDULED' | 'DECLINED' | 'ENDED' | 'PENDING';
  /** The plan in force after the request. */
  planId: string;
  /** The plan the next renewal moves to, while a change at period end waits. */
  pendingPlanId?: string;
  /** Credit granted for the unused part of the paid period (NOW). */
  credit: number;
  /** Credit the subscription carries into its next charges. */
  creditBalance: number;
  currency: string;
  nextBillingTime?: string;
  /** The CHANGE billing record (NOW). */
  record?: BillingRecordView;
  failReason?: string;
}

export function changeResult(
  ctx: Ctx,
  s: SubscriptionRow,
  a: {
    when: ChangeWhen;
    result: ChangeResult['result'];
    credit: number;
    next: number | null;
    record?: BillingRecordRow;
  },
): ChangeResult {
  return {
    subscriptionId: s.id,
    subscriptionCode: s.code,
    when: a.when,
    result: a.result,
    planId: s.planId,
    ...(s.pendingPlanId !== null ? { pendingPlanId: s.pendingPlanId } : {}),
    credit: amountNumber(a.credit, s.currency),
    creditBalance: amountNumber(s.credit, s.currency),
    currency: s.currency,
    ...(a.next !== null ? { nextBillingTime: formatTime(a.next, ctx.zone) } : {}),
    ...(a.record ? { record: billingRecordView(ctx, a.record, s.code) } : {}),
    ...(a.record?.failReason ? { failReason: a.record.failReason } : {}),
  };
}
