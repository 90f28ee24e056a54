import type { Ctx } from '../../ctx.js';
import type { Reads, TransactionRow } from '../../store/store.js';
import { finishSucceeded } from './outcome.js';
import { STATUS } from './view.js';

/**
 * SPEC §19: a charge a coupon brings to zero is recorded SUCCESS without calling the channel, and
 * a subscription's first charge is no exception where paygate's vault keeps the card (the
 * sandbox): no money moves, and the card is already checked (Luhn, expiry) and sealed. A Stripe
 * merchant's card is kept only at Stripe, which only a call to Stripe can do, so there the first
 * charge stays the zero-amount check a trial's is: the charges after the coupon need that card.
 */
export async function couponCoversFirstCharge(reads: Reads, row: TransactionRow): Promise<boolean> {
  if (row.paymentType !== 'SUBSCRIPTION' || row.amount !== 0 || row.channel === 'stripe') return false;
  if (row.billingRecordId === null) return false;
  const record = await reads.getRecord(row.billingRecordId);
  // A trial's zero check is not discounted (discountAmount 0): it still goes to the channel.
  return record !== undefined && record.discountAmount > 0;
}

/** Record such a first charge paid, as an approved charge is, with no channel reference. */
export function recordCoveredFirstCharge(ctx: Ctx, row: TransactionRow): Promise<TransactionRow> {
  return ctx.store.transaction(async (tx) => {
    await finishSucceeded(ctx, tx, row, STATUS.ACCEPTED, null, ctx.clock.now());
    return (await tx.getTransaction(row.id)) ?? row;
  });
}
