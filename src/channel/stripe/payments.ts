import Stripe from 'stripe';
import type { ChannelCard } from '../channel.js';
import { stepKey } from './idempotency-keys.js';
import { mapChargeError, mapFault, mapIntent } from './map.js';
import type { StripeCardOnFile, StripeChargeResult, StripePaymentResult } from './results.js';

export interface PaymentInput {
  /** paymentKey(transactionId, attempt): every call of this attempt derives its key from it. */
  idempotencyKey: string;
  /** Minor units. */
  amount: number;
  /** ISO 4217, any case. */
  currency: string;
  /**
   * The card as the shopper typed it (first call), or the PaymentMethod (and Customer) a
   * previous in-flight answer reported, when the attempt is repeated: the card number is
   * never needed twice.
   */
  source: { card: ChannelCard } | { paymentMethodId: string; customerId: string | null };
  /** paygate's 3DS return URL: Stripe sends the shopper back here after next_action. */
  returnUrl: string;
  /** SUBSCRIPTION first charge: keep the card on a Customer for off-session renewals. */
  saveForOffSession: boolean;
  customer?: { email?: string; name?: string };
  description?: string;
  metadata?: Record<string, string>;
}

export const cardOf = (pm: Stripe.PaymentMethod, customerId: string | null): StripeCardOnFile | null =>
  pm.card
    ? {
        paymentMethodId: pm.id,
        customerId,
        brand: pm.card.brand,
        last4: pm.card.last4,
        expMonth: pm.card.exp_month,
        expYear: pm.card.exp_year,
      }
    : null;

export async function obtainPaymentMethod(
  client: Stripe,
  input: Pick<PaymentInput, 'idempotencyKey' | 'source'>,
): Promise<Stripe.PaymentMethod | StripeChargeResult> {
  try {
    if ('card' in input.source) {
      const c = input.source.card;
      return await client.paymentMethods.create(
        {
          type: 'card',
          card: { number: c.number, exp_month: c.expMonth, exp_year: c.expYear, ...(c.cvv ? { cvc: c.cvv } : {}) },
          ...(c.holderName ? { billing_details: { name: c.holderName } } : {}),
        },
        { idempotencyKey: stepKey(input.idempotencyKey, 'payment_method') },
      );
    }
    return await client.paymentMethods.retrieve(input.source.paymentMethodId);
  } catch (err) {
    // Creating a PaymentMethod moves no money: a decline here has no intent, a fault charged nothing.
    return mapChargeError(err, false);
  }
}

/** A new Customer for a card kept off-session: its id, or the fault that stopped it (no money moved). */
export async function createCustomer(
  client: Stripe,
  input: Pick<PaymentInput, 'idempotencyKey' | 'customer' | 'metadata'>,
): Promise<{ id: string } | { fault: StripeChargeResult }> {
  try {
    const c = await client.customers.create(
      { ...(input.customer ?? {}), ...(input.metadata ? { metadata: input.metadata } : {}) },
      { idempotencyKey: stepKey(input.idempotencyKey, 'customer') },
    );
    return { id: c.id };
  } catch (err) {
    return { fault: mapFault(err, false) };
  }
}

/**
 * PAY, CHECKOUT and a SUBSCRIPTION's first charge: card → PaymentMethod (→ Customer) →
 * PaymentIntent created, then confirmed. Declines, 3DS and faults are results.
 */
export async function createAndConfirmPayment(client: Stripe, input: PaymentInput): Promise<StripePaymentResult> {
  const pm = await obtainPaymentMethod(client, input);
  if ('outcome' in pm) return { ...pm, card: null };
  const attachedTo = typeof pm.customer === 'string' ? pm.customer : (pm.customer?.id ?? null);
  let customerId = 'customerId' in input.source ? input.source.customerId : attachedTo;
  if (input.saveForOffSession && !customerId) {
    const c = await createCustomer(client, input);
    if ('fault' in c) return { ...c.fault, card: cardOf(pm, null) };
    customerId = c.id;
  }
  const card = cardOf(pm, customerId);
  const result = await createThenConfirm(
    client,
    input.idempotencyKey,
    {
      amount: input.amount,
      currency: input.currency.toLowerCase(),
      payment_method: pm.id,
      allowed_payment_method_types: ['card'],
      ...(customerId ? { customer: customerId } : {}),
      ...(input.saveForOffSession ? { setup_future_usage: 'off_session' as const } : {}),
      ...(input.description ? { description: input.description } : {}),
      ...(input.metadata ? { metadata: input.metadata } : {}),
    },
    { return_url: input.returnUrl },
  );
  return { ...result, card };
}

/**
 * Two calls, not one create-with-confirm: the intent's id is known before anything can move
 * money, so whatever happens to the confirm call (a timeout, or a 500 that Stripe stores and
 * replays for the key's 24 hours) the caller can always read the intent and learn the truth.
 */
async function createThenConfirm(
  client: Stripe,
  baseKey: string,
  create: Stripe.PaymentIntentCreateParams,
  confirm: Stripe.PaymentIntentConfirmParams,
): Promise<StripeChargeResult> {
  let pi: Stripe.PaymentIntent;
  try {
    pi = await client.paymentIntents.create(create, { idempotencyKey: stepKey(baseKey, 'payment_intent') });
  } catch (err) {
    // An unconfirmed intent moves no money.
    return mapChargeError(err, false);
  }
  return confirmKnown(client, pi.id, baseKey, confirm);
}

async function confirmKnown(
  client: Stripe,
  intentId: string,
  baseKey: string,
  confirm: Stripe.PaymentIntentConfirmParams,
): Promise<StripeChargeResult> {
  try {
    return mapIntent(
      await client.paymentIntents.confirm(intentId, confirm, { idempotencyKey: stepKey(baseKey, 'confirm') }),
    );
  } catch (err) {
    // Confirmed already, by a call whose key Stripe no longer remembers: the intent says how it ended.
    if (err instanceof Stripe.errors.StripeInvalidRequestError && err.code === 'payment_intent_unexpected_state') {
      return retrieveIntent(client, intentId);
    }
    const r = mapChargeError(err, true);
    if (r.outcome === 'in_flight') return { ...r, ref: intentId };
    if (r.outcome === 'declined') return { ...r, ref: r.ref ?? intentId };
    return r;
  }
}

export interface ResumeInput {
  /** The same base key the payment or renewal was first tried with. */
  idempotencyKey: string;
  /** The ref of the in-flight answer. */
  intentId: string;
  /** As first tried: customer-present with paygate's 3DS return URL, or off-session. */
  mode: { returnUrl: string } | { offSession: true };
}

/**
 * Settles a payment left in flight with a known intent, at any later time: reads the intent and,
 * only if it was never confirmed, confirms it with the original key. Never creates a second
 * intent, so it is safe after Stripe has forgotten the keys (24 hours).
 */
export async function resumePayment(client: Stripe, input: ResumeInput): Promise<StripeChargeResult> {
  const now = await retrieveIntent(client, input.intentId);
  if (now.outcome !== 'in_flight' || now.cause !== 'not_confirmed') return now;
  const r = await confirmKnown(
    client,
    input.intentId,
    input.idempotencyKey,
    'returnUrl' in input.mode ? { return_url: input.mode.returnUrl } : { off_session: true },
  );
  return 'offSession' in input.mode && r.outcome === 'requires_action' ? offSessionAuth(r.ref) : r;
}

const offSessionAuth = (ref: string): StripeChargeResult => ({
  outcome: 'declined',
  ref,
  reason: 'authentication_required',
  stripeCode: 'authentication_required',
});

export interface OffSessionInput {
  /** renewalKey(billingRecordId, attempt). */
  idempotencyKey: string;
  amount: number;
  currency: string;
  customerId: string;
  paymentMethodId: string;
  /**
   * An earlier run sent this charge and never learnt its answer (no intent id kept): Stripe may
   * have forgotten the key (24 hours), so the intent is looked for on the Customer first.
   */
  triedBefore?: boolean;
  /** Never create the charge: the one tagged with the key if any, else a decline marked `unmade`. */
  lookOnly?: boolean;
  description?: string;
  metadata?: Record<string, string>;
}

/** The metadata that names the charge an intent was made for, so it can be found without its id. */
const CHARGE_TAG = 'paygate_charge';

/**
 * A renewal or retry: the stored card charged with no shopper present, the PaymentIntent created
 * and confirmed in one call (one of Stripe's operations instead of two: the budget charges twice
 * as many renewals a second). What the two-step flow protects is kept otherwise: within the
 * key's 24 hours a repeated call is answered with the first result, and a charge whose answer
 * was lost is looked up on the Customer by its tag before it is ever sent again. Stripe never asks
 * for 3DS here; a card that needs it is declined with authentication_required.
 */
export async function chargeOffSession(client: Stripe, input: OffSessionInput): Promise<StripeChargeResult> {
  if (input.triedBefore || input.lookOnly) {
    const found = await findTagged(client, input.customerId, input.idempotencyKey);
    if (found === undefined) return { outcome: 'in_flight', cause: 'network', ref: null, mayHaveMoved: true };
    if (found)
      return resumePayment(client, {
        idempotencyKey: input.idempotencyKey,
        intentId: found,
        mode: { offSession: true },
      });
    if (input.lookOnly)
      return { outcome: 'declined', ref: null, reason: 'processing_error', stripeCode: null, unmade: true };
  }
  let r: StripeChargeResult;
  try {
    r = mapIntent(
      await client.paymentIntents.create(
        {
          amount: input.amount,
          currency: input.currency.toLowerCase(),
          customer: input.customerId,
          payment_method: input.paymentMethodId,
          allowed_payment_method_types: ['card'],
          confirm: true,
          off_session: true,
          ...(input.description ? { description: input.description } : {}),
          metadata: { ...(input.metadata ?? {}), [CHARGE_TAG]: input.idempotencyKey },
        },
        { idempotencyKey: stepKey(input.idempotencyKey, 'off_session') },
      ),
    );
  } catch (err) {
    r = cardGone(err) ?? mapChargeError(err, true);
  }
  // Off-session there is nobody to authenticate: an intent asking for it is a decline.
  return r.outcome === 'requires_action' ? offSessionAuth(r.ref) : r;
}

/**
 * Stripe does not hold the stored card any more: its Customer or PaymentMethod was deleted, or the
 * merchant's key is now another Stripe account's ("No such customer"). Nothing was charged and no
 * retry with this key ever can: a decline (processing_error), so the retry rules apply and the
 * shopper is sent the update-card link, instead of a renewal left in progress that every run asks
 * again. A refused key (401/403) is not this: it says nothing about the card and stays waiting.
 */
function cardGone(err: unknown): StripeChargeResult | undefined {
  if (
    err instanceof Stripe.errors.StripeInvalidRequestError &&
    err.code === 'resource_missing' &&
    (err.param === 'customer' || err.param === 'payment_method')
  )
    return { outcome: 'declined', ref: null, reason: 'processing_error', stripeCode: 'resource_missing' };
  return undefined;
}

/**
 * The intent made for this charge, by its tag among the Customer's latest: its id, null when
 * there is none (nothing was charged), undefined when Stripe could not be asked.
 */
async function findTagged(client: Stripe, customerId: string, key: string): Promise<string | null | undefined> {
  try {
    const page = await client.paymentIntents.list({ customer: customerId, limit: 100 });
    return page.data.find((pi) => pi.metadata?.[CHARGE_TAG] === key)?.id ?? null;
  } catch {
    return undefined;
  }
}

/** Where an intent stands now: the 3DS return URL, webhooks' doubts and housekeeping read it. */
export async function retrieveIntent(client: Stripe, intentId: string): Promise<StripeChargeResult> {
  try {
    return mapIntent(await client.paymentIntents.retrieve(intentId));
  } catch (err) {
    const r = mapFault(err, false);
    // Reading moves nothing; an in-flight read means "ask again", with the intent we asked about.
    return r.outcome === 'in_flight' ? { ...r, ref: intentId, mayHaveMoved: true } : r;
  }
}
