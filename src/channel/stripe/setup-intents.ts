import Stripe from 'stripe';
import type { ChannelCard } from '../channel.js';
import { failReasonOf } from './decline-codes.js';
import { stepKey } from './idempotency-keys.js';
import { mapChargeError, mapFault } from './map.js';
import { cardOf, createCustomer, obtainPaymentMethod } from './payments.js';
import type { StripeChargeResult, StripePaymentResult } from './results.js';

/**
 * A card saved for off-session charges WITHOUT charging it: a plan's trial (whose first charge
 * is a zero-amount card check, which a PaymentIntent cannot be) and a subscription's card
 * update. Stripe's tool for it is a SetupIntent (usage=off_session) on the Customer: confirming
 * it asks the card's bank (a declining card fails, a card that wants 3-D Secure needs the
 * challenge) and, once it succeeds, the PaymentMethod is attached to the Customer and renewals
 * can charge it off-session. No money moves at any step.
 */
export interface SetupInput {
  /** paymentKey(transactionId, 0): every call derives its key from it. */
  idempotencyKey: string;
  card: ChannelCard;
  /** The Customer the card joins (a card update keeps the subscription's); null: a new Customer. */
  customerId: string | null;
  /** paygate's 3DS return URL: Stripe sends the cardholder back here after next_action. */
  returnUrl: string;
  customer?: { name?: string };
  metadata?: Record<string, string>;
}

/** A SetupIntent as Stripe holds it now → paygate's result (approved = the card is set up). */
export function mapSetupIntent(si: Stripe.SetupIntent): StripeChargeResult {
  switch (si.status) {
    case 'succeeded':
      return { outcome: 'approved', ref: si.id };
    case 'processing':
      return { outcome: 'in_flight', cause: 'processing', ref: si.id, mayHaveMoved: true };
    case 'requires_action': {
      const url = si.next_action?.redirect_to_url?.url;
      if (url) return { outcome: 'requires_action', ref: si.id, redirectUrl: url };
      // Only Stripe.js could run this action: paygate's server-side flow cannot hand it over.
      return {
        outcome: 'declined',
        ref: si.id,
        reason: 'authentication_required',
        stripeCode: 'next_action_not_redirect',
      };
    }
    case 'requires_confirmation':
      // Created, never confirmed: resumeSetup can still confirm it with its original key.
      return { outcome: 'in_flight', cause: 'not_confirmed', ref: si.id, mayHaveMoved: false };
    case 'canceled':
      return {
        outcome: 'declined',
        ref: si.id,
        reason: 'processing_error',
        stripeCode: `canceled:${si.cancellation_reason ?? 'unknown'}`,
      };
    default: {
      // requires_payment_method: the last attempt failed (last_setup_error says why).
      const e = si.last_setup_error;
      return {
        outcome: 'declined',
        ref: si.id,
        reason: e ? failReasonOf(e.decline_code, e.code) : 'processing_error',
        stripeCode: e?.decline_code ?? e?.code ?? si.status,
      };
    }
  }
}

/**
 * Card → PaymentMethod (→ Customer) → SetupIntent created, then confirmed with paygate's 3DS
 * return URL: two calls, as for a payment, so the intent's id is known before its outcome is.
 */
export async function setUpCard(client: Stripe, input: SetupInput): Promise<StripePaymentResult> {
  const pm = await obtainPaymentMethod(client, { idempotencyKey: input.idempotencyKey, source: { card: input.card } });
  if ('outcome' in pm) return { ...pm, card: null };
  let customerId = input.customerId;
  if (!customerId) {
    const c = await createCustomer(client, input);
    if ('fault' in c) return { ...c.fault, card: null };
    customerId = c.id;
  }
  const card = cardOf(pm, customerId);
  let si: Stripe.SetupIntent;
  try {
    si = await client.setupIntents.create(
      {
        customer: customerId,
        payment_method: pm.id,
        usage: 'off_session',
        allowed_payment_method_types: ['card'],
        ...(input.metadata ? { metadata: input.metadata } : {}),
      },
      { idempotencyKey: stepKey(input.idempotencyKey, 'setup_intent') },
    );
  } catch (err) {
    // An unconfirmed SetupIntent sets nothing up: nothing to settle later.
    return { ...mapChargeError(err, false), card };
  }
  return { ...(await confirmKnown(client, si.id, input.idempotencyKey, input.returnUrl)), card };
}

async function confirmKnown(
  client: Stripe,
  intentId: string,
  baseKey: string,
  returnUrl: string | undefined,
): Promise<StripeChargeResult> {
  try {
    return mapSetupIntent(
      await client.setupIntents.confirm(intentId, returnUrl ? { return_url: returnUrl } : {}, {
        idempotencyKey: stepKey(baseKey, 'setup_confirm'),
      }),
    );
  } catch (err) {
    // Confirmed already, by a call whose key Stripe no longer remembers: the intent says how it ended.
    if (err instanceof Stripe.errors.StripeInvalidRequestError && err.code === 'setup_intent_unexpected_state')
      return retrieveSetup(client, intentId);
    if (err instanceof Stripe.errors.StripeCardError) {
      return {
        outcome: 'declined',
        ref: err.setup_intent?.id ?? intentId,
        reason: failReasonOf(err.decline_code, err.code),
        stripeCode: err.decline_code || err.code || null,
      };
    }
    const r = mapFault(err, true);
    return r.outcome === 'in_flight' ? { ...r, ref: intentId } : r;
  }
}

/** Where a SetupIntent stands now (3DS return, webhooks' doubts, housekeeping, expiry sweep). */
export async function retrieveSetup(client: Stripe, intentId: string): Promise<StripeChargeResult> {
  try {
    return mapSetupIntent(await client.setupIntents.retrieve(intentId));
  } catch (err) {
    const r = mapFault(err, false);
    return r.outcome === 'in_flight' ? { ...r, ref: intentId, mayHaveMoved: true } : r;
  }
}

/**
 * Settles a card set-up left in flight: reads the SetupIntent and, only if it was never
 * confirmed, confirms it with its original key. Never creates a second one.
 */
export async function resumeSetup(
  client: Stripe,
  input: { idempotencyKey: string; intentId: string; returnUrl?: string },
): Promise<StripeChargeResult> {
  const now = await retrieveSetup(client, input.intentId);
  if (now.outcome !== 'in_flight' || now.cause !== 'not_confirmed') return now;
  return confirmKnown(client, input.intentId, input.idempotencyKey, input.returnUrl);
}

/** SetupIntent ids (seti_…) and PaymentIntent ids (pi_…) share the transaction's channel ref. */
export const isSetupIntentId = (ref: string): boolean => ref.startsWith('seti_');
