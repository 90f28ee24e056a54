import type { Ctx } from '../../ctx.js';
import type { ClaimedRecord, SubscriptionRow, Tx } from '../../store/store.js';
import { emailsSubscriber, queueRenewalFailed, queueSubscriptionEnded } from '../customer-email.js';

/**
 * The subscriber's emails about a renewal's failure (SPEC §17), in the unit of work that records
 * it: renewal failed (with the card-update link) while retries are left, subscription ended
 * after the last one. A successful renewal's receipt comes with its invoice.
 */
export async function emailRenewalFailure(
  ctx: Ctx,
  tx: Tx,
  s: SubscriptionRow,
  rec: ClaimedRecord,
  f: { failReason: string | null; nextAttemptAt: number | null; updateCardUrl: string | undefined; now: number },
): Promise<void> {
  if (!emailsSubscriber(ctx, s)) return;
  if (f.updateCardUrl === undefined) {
    await queueSubscriptionEnded(ctx, tx, s, { status: 'FAILED', endTime: f.now }, f.now);
    return;
  }
  const plan = await tx.getPlanInfo(rec.recordPlanId ?? s.planId);
  await queueRenewalFailed(
    ctx,
    tx,
    s,
    rec.id,
    {
      planName: plan?.name ?? s.planId,
      subscriptionCode: s.code,
      amount: rec.amount,
      currency: rec.currency,
      ...(rec.brand && rec.last4 ? { payment: { brand: rec.brand, last4: rec.last4 } } : {}),
      ...(f.failReason ? { failReason: f.failReason } : {}),
      updateCardUrl: f.updateCardUrl,
      ...(f.nextAttemptAt !== null ? { nextAttemptAt: f.nextAttemptAt } : {}),
    },
    f.now,
  );
}
