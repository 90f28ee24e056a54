import Stripe from 'stripe';
import { mapFault, mapIntent } from './map.js';
import type { StripeChargeResult } from './results.js';

/** What cancelling an abandoned intent ended in: cancelled, or how the intent stands instead. */
export type StripeAbandonResult = { outcome: 'cancelled'; ref: string } | StripeChargeResult;

export interface AbandonInput {
  intentId: string;
  /** The payment's base key (`paygate:T:N`): the cancel is `…:cancel`, so a repeat is answered the first result. */
  idempotencyKey: string;
}

const cancelled = (pi: Stripe.PaymentIntent): StripeAbandonResult | null => (pi.status === 'canceled' ? { outcome: 'cancelled', ref: pi.id } : null);

/**
 * A 3-D Secure session that ran out: cancel its intent (`cancellation_reason=abandoned`) so the
 * shopper can no longer finish the challenge and be charged for a payment paygate has given up.
 * Stripe refuses to cancel an intent that succeeded (or is processing) meanwhile: the intent is
 * then read and its own state returned, so the caller records the payment instead of losing it.
 * Cancelling one already cancelled (a repeat after Stripe forgot the key) reads it the same way.
 */
export async function abandonIntent(client: Stripe, input: AbandonInput): Promise<StripeAbandonResult> {
  try {
    const pi = await client.paymentIntents.cancel(input.intentId, { cancellation_reason: 'abandoned' }, { idempotencyKey: `${input.idempotencyKey}:cancel` });
    return cancelled(pi) ?? mapIntent(pi);
  } catch (err) {
    if (!(err instanceof Stripe.errors.StripeInvalidRequestError && err.code === 'payment_intent_unexpected_state')) {
      const r = mapFault(err, false);
      return r.outcome === 'in_flight' ? { ...r, ref: input.intentId, mayHaveMoved: true } : r;
    }
  }
  try {
    const pi = await client.paymentIntents.retrieve(input.intentId);
    return cancelled(pi) ?? mapIntent(pi);
  } catch (err) {
    const r = mapFault(err, false);
    return r.outcome === 'in_flight' ? { ...r, ref: input.intentId, mayHaveMoved: true } : r;
  }
}
