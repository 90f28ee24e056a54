import type { Ctx } from '../../ctx.js';
import { type DocumentFields, subscriptionCallbackBody } from '../../notify/payloads.js';
import type { BillingRecordRow, SubscriptionRow, Tx } from '../../store/store.js';

/** PLAN_CHANGED for a change now, INSIDE the unit of work that records it. */
export async function notifyChanged(
  ctx: Ctx,
  tx: Tx,
  s: SubscriptionRow,
  record: BillingRecordRow,
  next: number | null,
  c: { previousPlanId: string; credit: number },
  now: number,
  invoice: DocumentFields | undefined,
): Promise<void> {
  await tx.enqueueEvent({
    merchantId: s.merchantId,
    kind: 'SUBSCRIPTION',
    eventType: 'PLAN_CHANGED',
    transactionId: record.transactionId,
    subscriptionId: s.id,
    notifyUrl: s.notifyUrl,
    body: subscriptionCallbackBody({
      eventType: 'PLAN_CHANGED',
      subscription: s,
      record,
      nextBillingTime: next,
      eventTime: now,
      zone: ctx.zone,
      change: { ...c, when: 'NOW' },
      ...(invoice ? { invoice } : {}),
    }),
    now,
  });
}
