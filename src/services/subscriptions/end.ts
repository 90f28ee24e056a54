import { isCounted, type SubscriptionStatus } from '../../domain/subscription-state.js';
import type { SubscriptionRow, Tx } from '../../store/store.js';

/**
 * A subscription enters an ended state (CANCELLED, FAILED, EXPIRED). Call INSIDE the transaction
 * of the change: the plan's currentSubscriptions drops in the same transaction when the
 * subscription leaves INCOMPLETE/ACTIVE/PAUSED (with the place a pending plan change holds), and its vaulted card is deleted (SPEC §6) — unless
 * a renewal charge is still under way (a PENDING record with a transaction): the run that records
 * it needs the card for the channel's idempotent replay and deletes it afterwards.
 */
export async function endSubscription(
  tx: Tx,
  s: SubscriptionRow,
  to: Extract<SubscriptionStatus, 'CANCELLED' | 'FAILED' | 'EXPIRED'>,
  at: { now: number; endTime: number; cancelTime?: number },
): Promise<void> {
  await tx.setSubscriptionStatus(s.id, {
    status: to,
    now: at.now,
    endTime: at.endTime,
    ...(at.cancelTime !== undefined ? { cancelTime: at.cancelTime } : {}),
  });
  if (isCounted(s.status)) {
    await tx.releasePlanSlot(s.planId);
    // A change at period end holds a place on its plan too (docs/renewals.md).
    if (s.pendingPlanId !== null) await tx.releasePlanSlot(s.pendingPlanId);
  }
  if (s.cardId !== null && (await tx.pendingRecords(s.id)).length === 0) await tx.deleteCard(s.cardId);
}
