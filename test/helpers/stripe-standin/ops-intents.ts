import { AUTHENTICATION_REQUIRED, GENERIC_DECLINE, type Decline } from './cards.js';
import { bool, cardError, int, ok, type EngineCtx, type OpResult } from './engine-ctx.js';
import { invalidRequest, missing, type StandinError } from './errors.js';
import { str, stringMap, type FormObject } from './form.js';
import { paymentMethod } from './ops-cards.js';
import { renderIntent, renderPaymentMethod } from './render.js';
import { stripeId, type IntentState, type PaymentMethodState } from './state.js';

/** PaymentIntents: create, confirm, the card's documented behaviour, 3DS completion, settling. */
export function intent(ctx: EngineCtx, id: string): IntentState {
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
    throw invalidRequest('The provided PaymentMethod is attached to another customer.', { param: 'payment_method' });
  }
  const usedElsewhere = [...ctx.acct.intents.values()].some(
    (o) => o.id !== pi.id && o.paymentMethodId === pmId && o.status !== 'requires_confirmation',
  );
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

function decline(
  ctx: EngineCtx,
  pi: IntentState,
  pm: PaymentMethodState,
  d: Decline,
  withCharge: boolean,
): StandinError {
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
  pi.lastError = {
    type: 'card_error',
    code: d.code,
    declineCode: d.declineCode,
    message: d.message,
    chargeId,
    paymentMethodId: pm.id,
  };
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
    throw invalidRequest(
      "You cannot confirm this PaymentIntent because it's missing a payment method. To confirm the PaymentIntent with this Customer, you must provide a payment method.",
      {
        code: 'payment_intent_unexpected_state',
      },
    );
  }
  const pm = paymentMethod(ctx, pi.paymentMethodId);
  const b = pm.behaviour;
  const needsAuth =
    b.kind === 'always_authenticate' ||
    (b.kind === 'authenticate_unless_set_up' && !(pi.offSession && pm.setUpOffSession));
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
  if (amount < 1)
    throw invalidRequest('This value must be greater than or equal to 1.', {
      code: 'parameter_invalid_integer',
      param: 'amount',
    });
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

/** GET /v1/payment_intents?customer=…&limit=…: newest first, as Stripe lists (no pagination here). */
export function listIntents(ctx: EngineCtx, params: FormObject): OpResult {
  const customer = str(params, 'customer');
  const limit = Math.min(100, Math.max(1, int(params, 'limit', false) ?? 10));
  const all = [...ctx.acct.intents.values()]
    .filter((pi) => customer === undefined || pi.customerId === customer)
    .reverse();
  return ok({
    object: 'list',
    data: all.slice(0, limit).map((pi) => renderIntent(ctx.acct, pi, ctx.baseUrl)),
    has_more: all.length > limit,
    url: '/v1/payment_intents',
  });
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
