import { createHmac } from 'node:crypto';
import { AUTHENTICATION_REQUIRED, behaviourOf, brandOf, GENERIC_DECLINE, luhnValid, type Decline } from './cards.js';
import { invalidRequest, missing, StandinError } from './errors.js';
import type { StripeJson } from './fixtures.js';
import { obj, str, stringMap, type FormObject } from './form.js';
import { renderCharge, renderCustomer, renderIntent, renderPaymentMethod, renderRefund } from './render.js';
import { stripeId, type AccountState, type IntentState, type PaymentMethodState, type RefundState } from './state.js';

/** The four event types paygate subscribes to; the stand-in emits only these. */
export type EventType = 'payment_intent.succeeded' | 'payment_intent.payment_failed' | 'charge.refunded' | 'refund.updated';

export interface Emitted {
  type: EventType;
  object: StripeJson;
  previousAttributes?: StripeJson;
}

export interface EngineCtx {
  acct: AccountState;
  now: number;
  baseUrl: string;
  /** A 'processing' fault: the next successful card charge stays processing until settled. */
  processing: boolean;
  emit: (e: Emitted) => void;
}

export interface OpResult {
  status: number;
  body: StripeJson;
}

const ok = (body: StripeJson): OpResult => ({ status: 200, body });

function int(params: FormObject, key: string, required: boolean): number | undefined {
  const v = str(params, key);
  if (v === undefined) {
    if (required) throw invalidRequest(`Missing required param: ${key}.`, { code: 'parameter_missing', param: key });
    return undefined;
  }
  if (!/^-?\d+$/.test(v)) throw invalidRequest(`Invalid integer: ${v}`, { code: 'parameter_invalid_integer', param: key });
  return Number(v);
}

const bool = (params: FormObject, key: string) => str(params, key) === 'true';

function cardError(decline: Decline, extra: StripeJson, param?: string): StandinError {
  return new StandinError(402, {
    type: 'card_error',
    code: decline.code,
    decline_code: decline.declineCode,
    message: decline.message,
    doc_url: `https://stripe.com/docs/error-codes/${decline.code.replaceAll('_', '-')}`,
    param,
    ...extra,
  });
}

// ---- payment methods and customers -------------------------------------------------------

export function createPaymentMethod(ctx: EngineCtx, params: FormObject): OpResult {
  if (str(params, 'type') !== 'card') throw invalidRequest('The stand-in supports only type=card.', { param: 'type' });
  const card = obj(params, 'card');
  const number = str(card, 'number');
  if (number !== undefined && !ctx.acct.rawCardData) {
    throw invalidRequest(
      'Sending credit card numbers directly to the Stripe API is generally unsafe. We suggest you use test tokens that map to the test card you are using, see https://stripe.com/docs/testing. To enable raw card data APIs in test mode, see https://support.stripe.com/questions/enabling-access-to-raw-card-data-apis.',
    );
  }
  if (number === undefined) throw invalidRequest('Missing required param: card[number].', { code: 'parameter_missing', param: 'card[number]' });
  const expMonth = Number(str(card, 'exp_month'));
  const expYear = Number(str(card, 'exp_year'));
  if (!luhnValid(number)) {
    throw cardError({ code: 'incorrect_number', declineCode: 'incorrect_number', message: 'Your card number is incorrect.' }, {}, 'card[number]');
  }
  if (!Number.isInteger(expMonth) || expMonth < 1 || expMonth > 12) {
    throw cardError({ code: 'invalid_expiry_month', declineCode: 'invalid_expiry_month', message: "Your card's expiration month is invalid." }, {}, 'card[exp_month]');
  }
  const today = new Date(ctx.now);
  if (!Number.isInteger(expYear) || expYear < today.getUTCFullYear() || (expYear === today.getUTCFullYear() && expMonth < today.getUTCMonth() + 1)) {
    throw cardError({ code: 'invalid_expiry_year', declineCode: 'invalid_expiry_year', message: "Your card's expiration year is invalid." }, {}, 'card[exp_year]');
  }
  const pm: PaymentMethodState = {
    id: stripeId('pm'),
    created: ctx.now,
    behaviour: behaviourOf(number),
    brand: brandOf(number),
    last4: number.slice(-4),
    expMonth,
    expYear,
    fingerprint: createHmac('sha256', ctx.acct.id).update(number).digest('base64url').slice(0, 16),
    name: str(obj(params, 'billing_details'), 'name') ?? null,
    customerId: null,
    setUpOffSession: false,
    metadata: stringMap(params, 'metadata'),
  };
  ctx.acct.paymentMethods.set(pm.id, pm);
  return ok(renderPaymentMethod(pm));
}

function paymentMethod(ctx: EngineCtx, id: string, param = 'payment_method'): PaymentMethodState {
  const pm = ctx.acct.paymentMethods.get(id);
  if (!pm) throw missing('PaymentMethod', id, param);
  return pm;
}

export function retrievePaymentMethod(ctx: EngineCtx, id: string): OpResult {
  return ok(renderPaymentMethod(paymentMethod(ctx, id, 'id')));
}

export function attachPaymentMethod(ctx: EngineCtx, id: string, params: FormObject): OpResult {
  const pm = paymentMethod(ctx, id, 'id');
  const customerId = str(params, 'customer');
  if (!customerId) throw invalidRequest('Missing required param: customer.', { code: 'parameter_missing', param: 'customer' });
  if (!ctx.acct.customers.has(customerId)) throw missing('customer', customerId, 'customer');
  if (pm.customerId && pm.customerId !== customerId) {
    throw invalidRequest('The payment method you provided has already been attached to a customer.');
  }
  // Attaching verifies the card with the issuer: a card that declines fails here, except 0341.
  if (pm.behaviour.kind === 'declines') throw cardError(pm.behaviour.decline, {});
  pm.customerId = customerId;
  return ok(renderPaymentMethod(pm));
}

export function createCustomer(ctx: EngineCtx, params: FormObject): OpResult {
  const c = {
    id: stripeId('cus', 14),
    created: ctx.now,
    email: str(params, 'email') ?? null,
    name: str(params, 'name') ?? null,
    description: str(params, 'description') ?? null,
    metadata: stringMap(params, 'metadata'),
  };
  ctx.acct.customers.set(c.id, c);
  const pmId = str(params, 'payment_method');
  if (pmId) attachPaymentMethod(ctx, pmId, { customer: c.id });
  return ok(renderCustomer(c));
}

export function retrieveCustomer(ctx: EngineCtx, id: string): OpResult {
  const c = ctx.acct.customers.get(id);
  if (!c) throw missing('customer', id);
  return ok(renderCustomer(c));
}

// ---- payment intents ---------------------------------------------------------------------

function intent(ctx: EngineCtx, id: string): IntentState {
  const pi = ctx.acct.intents.get(id);
  if (!pi) throw missing('payment_intent', id, 'intent');
  return pi;
}

function setPaymentMethod(ctx: EngineCtx, pi: IntentState, pmId: string): void {
  const pm = paymentMethod(ctx, pmId);
  if (pm.customerId && !pi.customerId) {
    throw invalidRequest(
      'The provided PaymentMethod was previously attached to a Customer. To use a PaymentMethod that has been attached to a Customer, you must also provide the ID of the Customer in the `customer` parameter.',
      { param: 'payment_method' },
    );
  }
  if (pm.customerId && pi.customerId && pm.customerId !== pi.customerId) {
    throw invalidRequest("The provided PaymentMethod is attached to another customer.", { param: 'payment_method' });
  }
  const usedElsewhere = [...ctx.acct.intents.values()].some((o) => o.id !== pi.id && o.paymentMethodId === pmId && o.status !== 'requires_confirmation');
  if (!pm.customerId && usedElsewhere) {
    throw invalidRequest(
      'The provided PaymentMethod was previously used with a PaymentIntent without Customer attachment, shared with a connected account without Customer attachment, or was detached from a Customer. It may not be used again. To use a PaymentMethod multiple times, you must attach it to a Customer first.',
      { param: 'payment_method' },
    );
  }
  pi.paymentMethodId = pmId;
}

function succeed(ctx: EngineCtx, pi: IntentState, pm: PaymentMethodState): void {
  const chargeId = stripeId('ch');
  ctx.acct.charges.set(chargeId, {
    id: chargeId,
    created: ctx.now,
    intentId: pi.id,
    amount: pi.amount,
    currency: pi.currency,
    paymentMethodId: pm.id,
    customerId: pi.customerId,
    succeeded: true,
    decline: null,
  });
  pi.chargeIds.push(chargeId);
  pi.lastError = null;
  if (pi.setupFutureUsage && pi.customerId) {
    pm.customerId = pi.customerId;
    pm.setUpOffSession = pm.setUpOffSession || pi.setupFutureUsage === 'off_session';
  }
  if (ctx.processing) {
    pi.status = 'processing';
    pi.pendingSettlement = true;
    return;
  }
  pi.status = 'succeeded';
  ctx.emit({ type: 'payment_intent.succeeded', object: renderIntent(ctx.acct, pi, ctx.baseUrl) });
}

function decline(ctx: EngineCtx, pi: IntentState, pm: PaymentMethodState, d: Decline, withCharge: boolean): StandinError {
  let chargeId: string | null = null;
  if (withCharge) {
    chargeId = stripeId('ch');
    ctx.acct.charges.set(chargeId, {
      id: chargeId,
      created: ctx.now,
      intentId: pi.id,
      amount: pi.amount,
      currency: pi.currency,
      paymentMethodId: pm.id,
      customerId: pi.customerId,
      succeeded: false,
      decline: d,
    });
    pi.chargeIds.push(chargeId);
  }
  pi.status = 'requires_payment_method';
  pi.lastError = { type: 'card_error', code: d.code, declineCode: d.declineCode, message: d.message, chargeId, paymentMethodId: pm.id };
  ctx.emit({ type: 'payment_intent.payment_failed', object: renderIntent(ctx.acct, pi, ctx.baseUrl) });
  return cardError(d, {
    charge: chargeId ?? undefined,
    payment_intent: renderIntent(ctx.acct, pi, ctx.baseUrl),
    payment_method: renderPaymentMethod(pm),
    request_log_url: `https://dashboard.stripe.com/test/logs/${stripeId('req', 14)}`,
  });
}

/** One confirmation attempt, as the card's documented behaviour decides it. */
function attempt(ctx: EngineCtx, pi: IntentState): OpResult {
  if (!pi.paymentMethodId) {
    throw invalidRequest('You cannot confirm this PaymentIntent because it\'s missing a payment method. To confirm the PaymentIntent with this Customer, you must provide a payment method.', {
      code: 'payment_intent_unexpected_state',
    });
  }
  const pm = paymentMethod(ctx, pi.paymentMethodId);
  const b = pm.behaviour;
  const needsAuth =
    b.kind === 'always_authenticate' || (b.kind === 'authenticate_unless_set_up' && !(pi.offSession && pm.setUpOffSession));
  if (b.kind === 'declines') throw decline(ctx, pi, pm, b.decline, true);
  if (b.kind === 'attaches_then_declines') throw decline(ctx, pi, pm, GENERIC_DECLINE, true);
  if (needsAuth && pi.offSession) throw decline(ctx, pi, pm, AUTHENTICATION_REQUIRED, false);
  if (needsAuth) {
    pi.status = 'requires_action';
    return ok(renderIntent(ctx.acct, pi, ctx.baseUrl));
  }
  succeed(ctx, pi, pm);
  return ok(renderIntent(ctx.acct, pi, ctx.baseUrl));
}

function applyConfirmParams(ctx: EngineCtx, pi: IntentState, params: FormObject): void {
  const pmId = str(params, 'payment_method');
  if (pmId) setPaymentMethod(ctx, pi, pmId);
  const returnUrl = str(params, 'return_url');
  if (returnUrl !== undefined) pi.returnUrl = returnUrl;
  const offSession = str(params, 'off_session');
  pi.offSession = offSession === 'true' || offSession === 'one_off' || offSession === 'recurring';
  if (pi.offSession && !pi.customerId) {
    throw invalidRequest('When `off_session` is set, you must also provide a `customer`.', { param: 'customer' });
  }
  const sfu = str(params, 'setup_future_usage');
  if (sfu === 'off_session' || sfu === 'on_session') pi.setupFutureUsage = sfu;
}

export function createIntent(ctx: EngineCtx, params: FormObject): OpResult {
  const amount = int(params, 'amount', true) as number;
  if (amount < 1) throw invalidRequest('This value must be greater than or equal to 1.', { code: 'parameter_invalid_integer', param: 'amount' });
  const currency = str(params, 'currency');
  if (!currency || !/^[a-z]{3}$/.test(currency)) throw invalidRequest('Invalid currency', { param: 'currency' });
  const customerId = str(params, 'customer') ?? null;
  if (customerId && !ctx.acct.customers.has(customerId)) throw missing('customer', customerId, 'customer');
  const confirm = bool(params, 'confirm');
  if (str(params, 'off_session') !== undefined && !confirm) {
    throw invalidRequest('You can only pass in `off_session` when `confirm` is set to true.', { param: 'off_session' });
  }
  const pi: IntentState = {
    id: stripeId('pi'),
    created: ctx.now,
    clientSecret: '',
    amount,
    currency,
    customerId,
    paymentMethodId: null,
    status: 'requires_payment_method',
    setupFutureUsage: null,
    offSession: false,
    returnUrl: null,
    lastError: null,
    chargeIds: [],
    description: str(params, 'description') ?? null,
    metadata: stringMap(params, 'metadata'),
    pendingSettlement: false,
  };
  pi.clientSecret = `${pi.id}_secret_${stripeId('x').slice(2)}`;
  applyConfirmParams(ctx, pi, params);
  // Validation passed: from here the intent exists, whatever the attempt answers.
  ctx.acct.intents.set(pi.id, pi);
  if (!confirm) {
    if (pi.paymentMethodId) pi.status = 'requires_confirmation';
    return ok(renderIntent(ctx.acct, pi, ctx.baseUrl));
  }
  return attempt(ctx, pi);
}

export function confirmIntent(ctx: EngineCtx, id: string, params: FormObject): OpResult {
  const pi = intent(ctx, id);
  if (pi.status !== 'requires_payment_method' && pi.status !== 'requires_confirmation') {
    throw invalidRequest(
      `This PaymentIntent's status is ${pi.status}, but must be one of requires_payment_method, requires_confirmation, requires_action in order to be confirmed.`,
      { code: 'payment_intent_unexpected_state', payment_intent: renderIntent(ctx.acct, pi, ctx.baseUrl) },
    );
  }
  applyConfirmParams(ctx, pi, params);
  return attempt(ctx, pi);
}

export function retrieveIntent(ctx: EngineCtx, id: string): OpResult {
  return ok(renderIntent(ctx.acct, intent(ctx, id), ctx.baseUrl));
}

/** The shopper finished (or failed) the 3DS challenge on the stand-in's page. */
export function completeAuthentication(ctx: EngineCtx, id: string, passed: boolean): IntentState {
  const pi = intent(ctx, id);
  if (pi.status !== 'requires_action' || !pi.paymentMethodId) return pi;
  const pm = paymentMethod(ctx, pi.paymentMethodId);
  if (passed) {
    succeed(ctx, pi, pm);
    return pi;
  }
  pi.status = 'requires_payment_method';
  pi.lastError = {
    type: 'invalid_request_error',
    code: 'payment_intent_authentication_failure',
    declineCode: null,
    message:
      'The provided PaymentMethod has failed authentication. You can provide payment_method_data or a new PaymentMethod to attempt to fulfill this PaymentIntent again.',
    chargeId: null,
    paymentMethodId: pm.id,
  };
  ctx.emit({ type: 'payment_intent.payment_failed', object: renderIntent(ctx.acct, pi, ctx.baseUrl) });
  return pi;
}

/** A 'processing' intent settles: the bank answered later. */
export function settleIntent(ctx: EngineCtx, id: string, outcome: 'succeeded' | 'failed'): void {
  const pi = intent(ctx, id);
  if (pi.status !== 'processing' || !pi.paymentMethodId) throw new Error(`stripe-standin: ${id} is not processing`);
  const pm = paymentMethod(ctx, pi.paymentMethodId);
  pi.pendingSettlement = false;
  if (outcome === 'succeeded') {
    pi.status = 'succeeded';
    ctx.emit({ type: 'payment_intent.succeeded', object: renderIntent(ctx.acct, pi, ctx.baseUrl) });
    return;
  }
  const ch = ctx.acct.charges.get(pi.chargeIds.at(-1) ?? '');
  if (ch) {
    ch.succeeded = false;
    ch.decline = GENERIC_DECLINE;
  }
  decline(ctx, pi, pm, GENERIC_DECLINE, false);
}

// ---- refunds -----------------------------------------------------------------------------

function refund(ctx: EngineCtx, id: string): RefundState {
  const r = ctx.acct.refunds.get(id);
  if (!r) throw missing('refund', id, 'refund');
  return r;
}

function unrefunded(ctx: EngineCtx, chargeId: string, amount: number): number {
  let taken = 0;
  for (const r of ctx.acct.refunds.values()) {
    if (r.chargeId === chargeId && (r.status === 'pending' || r.status === 'succeeded')) taken += r.amount;
  }
  return amount - taken;
}

export function createRefund(ctx: EngineCtx, params: FormObject): OpResult {
  const piId = str(params, 'payment_intent');
  const chargeParam = str(params, 'charge');
  let chargeId: string | undefined;
  if (piId) {
    const pi = intent(ctx, piId);
    chargeId = pi.status === 'succeeded' ? pi.chargeIds.at(-1) : undefined;
    if (!chargeId) {
      throw invalidRequest(`This PaymentIntent (${piId}) does not have a successful charge to refund.`, { code: 'charge_not_refundable', param: 'payment_intent' });
    }
  } else if (chargeParam) {
    chargeId = chargeParam;
  } else {
    throw invalidRequest('One of the following params should be provided for this request: payment_intent or charge.');
  }
  const ch = ctx.acct.charges.get(chargeId);
  if (!ch) throw missing('charge', chargeId, 'charge');
  const left = unrefunded(ctx, ch.id, ch.amount);
  if (left <= 0) throw invalidRequest(`Charge ${ch.id} has already been refunded.`, { code: 'charge_already_refunded' });
  const amount = int(params, 'amount', false) ?? left;
  if (amount < 1) throw invalidRequest('This value must be greater than or equal to 1.', { code: 'parameter_invalid_integer', param: 'amount' });
  if (amount > left) {
    throw invalidRequest(`Refund amount (${amount}) is greater than unrefunded amount on charge (${left})`, { code: 'amount_too_large', param: 'amount' });
  }
  const r: RefundState = {
    id: stripeId('re'),
    created: ctx.now,
    chargeId: ch.id,
    intentId: ch.intentId,
    amount,
    currency: ch.currency,
    status: ctx.acct.refundMode,
    reason: str(params, 'reason') ?? null,
    failureReason: null,
    metadata: stringMap(params, 'metadata'),
  };
  ctx.acct.refunds.set(r.id, r);
  ctx.emit({ type: 'charge.refunded', object: renderCharge(ctx.acct, ch) });
  return ok(renderRefund(r));
}

export function retrieveRefund(ctx: EngineCtx, id: string): OpResult {
  return ok(renderRefund(refund(ctx, id)));
}

/** A pending refund settles (the card network answered). */
export function settleRefund(ctx: EngineCtx, id: string, outcome: 'succeeded' | 'failed'): void {
  const r = refund(ctx, id);
  if (r.status !== 'pending') throw new Error(`stripe-standin: refund ${id} is ${r.status}, not pending`);
  r.status = outcome;
  if (outcome === 'failed') r.failureReason = 'expired_or_canceled_card';
  ctx.emit({ type: 'refund.updated', object: renderRefund(r), previousAttributes: { status: 'pending' } });
}
