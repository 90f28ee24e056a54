import type { Ctx } from '../../ctx.js';
import type { TransactionRow, Tx } from '../../store/store.js';
import { cardReplaceable } from './rules.js';

/**
 * The end of a CARD_CHECK (the zero-amount check of a replacement card), INSIDE the unit of work
 * that records the transaction's result, whichever path got there (the request itself, the 3DS
 * page, the expiry sweep). No PAYMENT callback: nothing was paid.
 */
export async function cardCheckSucceeded(_ctx: Ctx, tx: Tx, txn: TransactionRow, now: number): Promise<void> {
  if (!txn.subscriptionId || !txn.cardId) return;
  const s = await tx.lockSubscription(txn.merchantId, txn.subscriptionId);
  if (!s || !cardReplaceable(s.status)) {
    // Ended while the check ran: its card data goes, the new card's too.
    await tx.deleteCard(txn.cardId);
    return;
  }
  // A renewal charge under way read its card when it was claimed, so the old card can go now.
  if (s.cardId !== null && s.cardId !== txn.cardId) await tx.deleteCard(s.cardId);
  await tx.setSubscriptionCard(s.id, txn.cardId, now);
  await tx.setCardUpdateToken(s.id, null, null);
  if (s.status !== 'ACTIVE') return;
  // A retry waiting for its day is due at once; it keeps its cycle, so the anchor is kept.
  for (const r of await tx.pendingRecords(s.id)) {
    if (r.billingType === 'RETRY' && r.scheduledTime > now) await tx.rescheduleRecord(r.id, now);
  }
}

/** Declined, 3DS failed or expired: the subscription keeps its card; the rejected one is deleted. */
export async function cardCheckFailed(_ctx: Ctx, tx: Tx, txn: TransactionRow): Promise<void> {
  if (txn.cardId) await tx.deleteCard(txn.cardId);
}
