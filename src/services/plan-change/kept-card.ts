import type { Ctx } from '../../ctx.js';
import type { ChargeResult, FailReason } from '../../channel/channel.js';
import type { BillingRecordRow, CardRow } from '../../store/store.js';
import { cardExpired } from '../../vault/card.js';
import { channelOf } from '../channel-of.js';

/**
 * What a CHANGE charge answered. `waiting`: the processor has not said (a timeout, a 5xx, an
 * intent still processing): nothing is recorded, the record stays PENDING and the renewal run
 * finishes it later from the processor's own answer. `refused`: it did not run the call at all.
 */
export type ChangeOutcome =
  | { approved: true; ref: string | null }
  | { approved: false; reason: FailReason; ref: string | null }
  | { waiting: true; ref: string | null }
  | { refused: true; message: string };

/**
 * The CHANGE charge of a card Stripe keeps: off-session on the stored Customer and
 * PaymentMethod, through a PaymentIntent keyed by the record (`paygate:{record}:0:off_session`), as a
 * renewal is. An intent already known for the record (a call that timed out) is read and, only
 * if never confirmed, confirmed with its original key: a repeat never makes a second charge, even
 * after Stripe has forgotten the keys. Off-session nobody can authenticate: a card that asks for
 * it is declined `authentication_required`, and the change does not happen.
 */
export async function chargeKeptCard(
  ctx: Ctx,
  record: BillingRecordRow,
  card: CardRow,
  now: number,
  /** The request that sent this charge died without its answer: look for it before charging. */
  triedBefore = false,
): Promise<ChangeOutcome> {
  if (!card.stripeCustomerId || !card.stripePaymentMethodId)
    return { approved: false, reason: 'processing_error', ref: null };
  if (cardExpired(card.expMonth, card.expYear, now, ctx.zone))
    return { approved: false, reason: 'expired_card', ref: null };
  const channel = await channelOf(ctx, record.merchantId, 'stripe');
  const txnId = record.transactionId;
  const earlier = txnId ? ((await ctx.store.getTransaction(txnId))?.channelRef ?? null) : null;
  const result: ChargeResult =
    earlier && channel.resume
      ? await channel.resume({ ref: earlier, idempotencyKey: record.id })
      : await channel.charge({
          idempotencyKey: record.id,
          amount: record.amount,
          currency: record.currency,
          customerPresent: false,
          stored: {
            customerId: card.stripeCustomerId,
            paymentMethodId: card.stripePaymentMethodId,
            ...(triedBefore ? { triedBefore } : {}),
          },
        });
  if (result.outcome === 'in_flight' && result.ref && txnId && result.ref !== earlier) {
    // Remembered before anything else: the next attempt reads this intent instead of creating one.
    const ref = result.ref;
    await ctx.store.transaction((tx) =>
      tx.updateTransactionIf(txnId, 100000, { channelRef: ref, updatedAt: ctx.clock.now() }),
    );
  }
  switch (result.outcome) {
    case 'approved':
      return { approved: true, ref: result.ref };
    case 'declined':
      return { approved: false, reason: result.reason, ref: result.ref };
    case 'requires_action':
      return { approved: false, reason: 'authentication_required', ref: result.ref };
    case 'in_flight':
      return { waiting: true, ref: result.ref };
    case 'refused':
      return { refused: true, message: result.message };
  }
}
