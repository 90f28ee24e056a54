import { bool, cardError, ok, type EngineCtx, type OpResult } from './engine-ctx.js';
import { invalidRequest, missing } from './errors.js';
import { fixture, type StripeJson } from './fixtures.js';
import { str, stringMap, type FormObject } from './form.js';
import { paymentMethod } from './ops-cards.js';
import { renderPaymentMethod } from './render.js';
import { stripeId, type AccountState, type PaymentMethodState, type SetupIntentState } from './state.js';

/**
 * SetupIntents: a card saved on a Customer for later off-session charges without charging it.
 * Confirming one asks the issuer as a charge would (a declining card fails with a card_error, a
 * card that wants 3-D Secure needs the challenge first) but moves no money; success attaches the
 * PaymentMethod to the intent's Customer, set up for off-session use.
 */
const secs = (ms: number) => Math.floor(ms / 1000);

export function renderSetupIntent(acct: AccountState, si: SetupIntentState, baseUrl: string): StripeJson {
  const o = fixture('setup_intent');
  const e = si.lastError;
  const pm = e?.paymentMethodId ? acct.paymentMethods.get(e.paymentMethodId) : undefined;
  Object.assign(o, {
    id: si.id,
    created: secs(si.created),
    client_secret: si.clientSecret,
    customer: si.customerId,
    payment_method: si.paymentMethodId,
    status: si.status,
    usage: si.usage,
    description: si.description,
    metadata: si.metadata,
    cancellation_reason: si.cancellationReason,
    automatic_payment_methods: null,
    payment_method_configuration_details: null,
    last_setup_error: e
      ? {
          type: e.type,
          code: e.code,
          decline_code: e.declineCode ?? undefined,
          message: e.message,
          doc_url: `https://stripe.com/docs/error-codes/${e.code.replaceAll('_', '-')}`,
          payment_method: pm ? renderPaymentMethod(pm) : undefined,
        }
      : null,
    next_action:
      si.status === 'requires_action'
        ? si.returnUrl
          ? {
              type: 'redirect_to_url',
              redirect_to_url: {
                return_url: si.returnUrl,
                url: `${baseUrl}/3ds/${si.id}?client_secret=${encodeURIComponent(si.clientSecret)}`,
              },
            }
          : {
              type: 'use_stripe_sdk',
              use_stripe_sdk: { type: 'three_d_secure_redirect', source: `src_${si.id.slice(5)}` },
            }
        : null,
  });
  return o;
}

export function setupIntent(ctx: EngineCtx, id: string): SetupIntentState {
  const si = ctx.acct.setupIntents.get(id);
  if (!si) throw missing('setup_intent', id, 'intent');
  return si;
}

const render = (ctx: EngineCtx, si: SetupIntentState) => renderSetupIntent(ctx.acct, si, ctx.baseUrl);

function usePaymentMethod(ctx: EngineCtx, si: SetupIntentState, pmId: string): void {
  const pm = paymentMethod(ctx, pmId);
  if (pm.customerId && si.customerId && pm.customerId !== si.customerId) {
    throw invalidRequest('The provided PaymentMethod is attached to another customer.', { param: 'payment_method' });
  }
  if (pm.customerId && !si.customerId) {
    throw invalidRequest(
      'The provided PaymentMethod was previously attached to a Customer. To use a PaymentMethod that has been attached to a Customer, you must also provide the ID of the Customer in the `customer` parameter.',
      { param: 'payment_method' },
    );
  }
  si.paymentMethodId = pmId;
}

function applyParams(ctx: EngineCtx, si: SetupIntentState, params: FormObject): void {
  const pmId = str(params, 'payment_method');
  if (pmId) usePaymentMethod(ctx, si, pmId);
  const returnUrl = str(params, 'return_url');
  if (returnUrl !== undefined) si.returnUrl = returnUrl;
}

function succeed(ctx: EngineCtx, si: SetupIntentState, pm: PaymentMethodState): void {
  si.status = 'succeeded';
  si.lastError = null;
  if (si.customerId) {
    pm.customerId = si.customerId;
    pm.setUpOffSession = pm.setUpOffSession || si.usage === 'off_session';
  }
  ctx.emit({ type: 'setup_intent.succeeded', object: render(ctx, si) });
}

function fail(
  ctx: EngineCtx,
  si: SetupIntentState,
  pm: PaymentMethodState,
  e: { type: 'card_error' | 'invalid_request_error'; code: string; declineCode: string | null; message: string },
): void {
  si.status = 'requires_payment_method';
  si.lastError = { ...e, chargeId: null, paymentMethodId: pm.id };
  ctx.emit({ type: 'setup_intent.setup_failed', object: render(ctx, si) });
}

/** One confirmation, as the card's documented behaviour decides it (no money moves either way). */
function attempt(ctx: EngineCtx, si: SetupIntentState): OpResult {
  if (!si.paymentMethodId) {
    throw invalidRequest("You cannot confirm this SetupIntent because it's missing a payment method.", {
      code: 'setup_intent_unexpected_state',
    });
  }
  const pm = paymentMethod(ctx, si.paymentMethodId);
  const b = pm.behaviour;
  if (b.kind === 'declines') {
    fail(ctx, si, pm, {
      type: 'card_error',
      code: b.decline.code,
      declineCode: b.decline.declineCode,
      message: b.decline.message,
    });
    throw cardError(b.decline, {
      setup_intent: render(ctx, si),
      payment_method: renderPaymentMethod(pm),
      request_log_url: `https://dashboard.stripe.com/test/logs/${stripeId('req', 14)}`,
    });
  }
  // 0341 attaches (a setup succeeds); only its charges fail. 3155 and 3184 ask for 3-D Secure.
  if (b.kind === 'authenticate_unless_set_up' || b.kind === 'always_authenticate') {
    si.status = 'requires_action';
    return ok(render(ctx, si));
  }
  succeed(ctx, si, pm);
  return ok(render(ctx, si));
}

export function createSetupIntent(ctx: EngineCtx, params: FormObject): OpResult {
  const customerId = str(params, 'customer') ?? null;
  if (customerId && !ctx.acct.customers.has(customerId)) throw missing('customer', customerId, 'customer');
  const usage = str(params, 'usage') ?? 'off_session';
  if (usage !== 'off_session' && usage !== 'on_session')
    throw invalidRequest(`Invalid usage: must be one of off_session or on_session`, { param: 'usage' });
  const si: SetupIntentState = {
    id: stripeId('seti'),
    created: ctx.now,
    clientSecret: '',
    customerId,
    paymentMethodId: null,
    status: 'requires_payment_method',
    usage,
    returnUrl: null,
    lastError: null,
    cancellationReason: null,
    description: str(params, 'description') ?? null,
    metadata: stringMap(params, 'metadata'),
  };
  si.clientSecret = `${si.id}_secret_${stripeId('x').slice(2)}`;
  applyParams(ctx, si, params);
  ctx.acct.setupIntents.set(si.id, si);
  if (!bool(params, 'confirm')) {
    if (si.paymentMethodId) si.status = 'requires_confirmation';
    return ok(render(ctx, si));
  }
  return attempt(ctx, si);
}

export function confirmSetupIntent(ctx: EngineCtx, id: string, params: FormObject): OpResult {
  const si = setupIntent(ctx, id);
  if (si.status !== 'requires_payment_method' && si.status !== 'requires_confirmation') {
    throw invalidRequest(
      `You cannot confirm this SetupIntent because it has a status of ${si.status}, but must be one of requires_payment_method, requires_confirmation, requires_action in order to be confirmed.`,
      { code: 'setup_intent_unexpected_state', setup_intent: render(ctx, si) },
    );
  }
  applyParams(ctx, si, params);
  return attempt(ctx, si);
}

export function retrieveSetupIntent(ctx: EngineCtx, id: string): OpResult {
  return ok(render(ctx, setupIntent(ctx, id)));
}

/** Stripe's accepted reasons for cancelling a SetupIntent (no `fraudulent`, unlike a PaymentIntent). */
const CANCEL_REASONS = new Set(['abandoned', 'duplicate', 'requested_by_customer']);
const CANCELLABLE = new Set(['requires_payment_method', 'requires_confirmation', 'requires_action']);

/**
 * POST /v1/setup_intents/:id/cancel: a cancelled SetupIntent can no longer be confirmed nor finish
 * its challenge. One that succeeded (or is cancelled already) answers 400
 * setup_intent_unexpected_state with the intent, as Stripe does; emits setup_intent.canceled.
 */
export function cancelSetupIntent(ctx: EngineCtx, id: string, params: FormObject): OpResult {
  const si = setupIntent(ctx, id);
  const reason = str(params, 'cancellation_reason');
  if (reason !== undefined && !CANCEL_REASONS.has(reason)) {
    throw invalidRequest('Invalid cancellation_reason: must be one of abandoned, duplicate, or requested_by_customer', {
      param: 'cancellation_reason',
    });
  }
  if (!CANCELLABLE.has(si.status)) {
    throw invalidRequest(
      `You cannot cancel this SetupIntent because it has a status of ${si.status}. Only a SetupIntent with one of the following statuses may be canceled: requires_payment_method, requires_confirmation, requires_action.`,
      { code: 'setup_intent_unexpected_state', setup_intent: render(ctx, si) },
    );
  }
  si.status = 'canceled';
  si.cancellationReason = reason ?? null;
  const body = render(ctx, si);
  ctx.emit({ type: 'setup_intent.canceled', object: body });
  return ok(body);
}

/** The cardholder finished (or failed) the challenge on the stand-in's 3DS page. */
export function completeSetupAuthentication(ctx: EngineCtx, id: string, passed: boolean): void {
  const si = setupIntent(ctx, id);
  if (si.status !== 'requires_action' || !si.paymentMethodId) return;
  const pm = paymentMethod(ctx, si.paymentMethodId);
  if (passed) {
    succeed(ctx, si, pm);
    return;
  }
  fail(ctx, si, pm, {
    type: 'invalid_request_error',
    code: 'setup_intent_authentication_failure',
    declineCode: null,
    message: 'The latest attempt to set up the payment method has failed because authentication failed.',
  });
}

/** POST /v1/setup_intents, GET /v1/setup_intents/:id, POST …/:id/confirm, POST …/:id/cancel. */
export function routeSetupIntents(
  ctx: EngineCtx,
  method: string,
  seg: string[],
  params: FormObject,
): OpResult | undefined {
  const [, , id, action] = seg;
  if (method === 'POST' && seg.length === 2) return createSetupIntent(ctx, params);
  if (method === 'GET' && id && seg.length === 3) return retrieveSetupIntent(ctx, id);
  if (method === 'POST' && id && action === 'confirm' && seg.length === 4) return confirmSetupIntent(ctx, id, params);
  if (method === 'POST' && id && action === 'cancel' && seg.length === 4) return cancelSetupIntent(ctx, id, params);
  return undefined;
}
