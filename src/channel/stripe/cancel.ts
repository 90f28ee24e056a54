import Stripe from 'stripe';
import { mapFault, mapIntent } from './map.js';
import { mapSetupIntent } from './setup-intents.js';
import type { StripeChargeResult } from './results.js';

/** What giving up an abandoned intent (PaymentIntent or SetupIntent) ended in: cancelled, or how it stands instead. */
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

const stateOf = (pi: Stripe.PaymentIntent): StripeAbandonResult =>
  pi.status === 'canceled' ? { outcome: 'cancelled', ref: pi.id } : mapIntent(pi);

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
    return stateOf(
      await client.paymentIntents.cancel(
        input.intentId,
        { cancellation_reason: 'abandoned' },
        { idempotencyKey: `${input.idempotencyKey}:cancel` },
      ),
    );
  } catch (err) {
    const raced =
      err instanceof Stripe.errors.StripeInvalidRequestError && err.code === 'payment_intent_unexpected_state';
    if (!raced) return faultOf(err, input.intentId);
  }
  try {
    return stateOf(await client.paymentIntents.retrieve(input.intentId));
  } catch (err) {
    return faultOf(err, input.intentId);
  }
}

/** A SetupIntent Stripe still lets the cardholder finish, and so lets paygate cancel. */
const SETUP_CANCELLABLE = new Set<Stripe.SetupIntent.Status>([
  'requires_action',
  'requires_payment_method',
  'requires_confirmation',
]);

const setupStateOf = (si: Stripe.SetupIntent): StripeAbandonResult =>
  si.status === 'canceled' ? { outcome: 'cancelled', ref: si.id } : mapSetupIntent(si);

/**
 * A card check's 3-D Secure session that ran out (a trial's first charge, a card update): its
 * SetupIntent is cancelled (`cancellation_reason=abandoned`, same key as a PaymentIntent's cancel)
 * so a cardholder finishing the challenge later cannot save a card paygate has given up. Read
 * first, as for a payment: one that succeeded meanwhile comes back approved (the card is saved,
 * never cancelled over), one already cancelled is `cancelled` without a second call, and a cancel
 * Stripe refuses because it succeeded at that instant (setup_intent_unexpected_state) is read
 * again. One whose last attempt failed (requires_payment_method with an error) is closed too,
 * but reported as the decline it was, as a PaymentIntent in that state is.
 */
export async function abandonSetup(client: Stripe, input: AbandonInput): Promise<StripeAbandonResult> {
  let si: Stripe.SetupIntent;
  try {
    si = await client.setupIntents.retrieve(input.intentId);
  } catch (err) {
    return faultOf(err, input.intentId);
  }
  if (!SETUP_CANCELLABLE.has(si.status)) return setupStateOf(si);
  const failed = si.status === 'requires_payment_method' && si.last_setup_error ? mapSetupIntent(si) : null;
  try {
    const after = setupStateOf(
      await client.setupIntents.cancel(
        input.intentId,
        { cancellation_reason: 'abandoned' },
        { idempotencyKey: `${input.idempotencyKey}:cancel` },
      ),
    );
    return after.outcome === 'cancelled' && failed ? failed : after;
  } catch (err) {
    const raced =
      err instanceof Stripe.errors.StripeInvalidRequestError && err.code === 'setup_intent_unexpected_state';
    if (!raced) return faultOf(err, input.intentId);
  }
  try {
    return setupStateOf(await client.setupIntents.retrieve(input.intentId));
  } catch (err) {
    return faultOf(err, input.intentId);
  }
}
