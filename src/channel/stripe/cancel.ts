import Stripe from 'stripe';
import { mapFault, mapIntent } from './map.js';
import type { StripeChargeResult } from './results.js';

/** What giving up an abandoned intent ended in: cancelled, or how the intent stands instead. */
export type StripeAbandonResult = { outcome: 'cancelled'; ref: string } | StripeChargeResult;

export interface AbandonInput {
  intentId: string;
  /** The payment's base key (`paygate:T:N`): the cancel is `…:cancel`, so a repeat is answered the first result. */
  idempotencyKey: string;
}

const faultOf = (err: unknown, intentId: string): StripeAbandonResult => {
  const r = mapFault(err, false);
  // The intent is known; a fault reading or cancelling it means "ask again later".
  return r.outcome === 'in_flight' ? { ...r, ref: intentId, mayHaveMoved: true } : r;
};

const stateOf = (pi: Stripe.PaymentIntent): StripeAbandonResult => (pi.status === 'canceled' ? { outcome: 'cancelled', ref: pi.id } : mapIntent(pi));

/**
 * A 3-D Secure session that ran out: its intent is cancelled (`cancellation_reason=abandoned`) so
 * the shopper can no longer finish the challenge and be charged for a payment paygate has given
 * up. Read first: an intent that succeeded, failed or is processing meanwhile is returned as it
 * stands (never cancelled), and one already cancelled (by an earlier sweep whose answer was lost,
 * or whose stored 500 Stripe keeps replaying) is `cancelled` without a second call. If the cancel
 * races a challenge finished at that moment, Stripe refuses it (payment_intent_unexpected_state)
 * and the intent is read again: money taken is always reported, never cancelled over.
 */
export async function abandonIntent(client: Stripe, input: AbandonInput): Promise<StripeAbandonResult> {
  let pi: Stripe.PaymentIntent;
  try {
    pi = await client.paymentIntents.retrieve(input.intentId);
  } catch (err) {
    return faultOf(err, input.intentId);
  }
  if (pi.status !== 'requires_action') return stateOf(pi);
  try {
    return stateOf(await client.paymentIntents.cancel(input.intentId, { cancellation_reason: 'abandoned' }, { idempotencyKey: `${input.idempotencyKey}:cancel` }));
  } catch (err) {
    const raced = err instanceof Stripe.errors.StripeInvalidRequestError && err.code === 'payment_intent_unexpected_state';
    if (!raced) return faultOf(err, input.intentId);
  }
  try {
    return stateOf(await client.paymentIntents.retrieve(input.intentId));
  } catch (err) {
    return faultOf(err, input.intentId);
  }
}
