import { createHmac } from 'node:crypto';
import { behaviourOf, brandOf, luhnValid } from './cards.js';
import { cardError, ok, type EngineCtx, type OpResult } from './engine-ctx.js';
import { invalidRequest, missing } from './errors.js';
import { obj, str, stringMap, type FormObject } from './form.js';
import { renderCustomer, renderPaymentMethod } from './render.js';
import { stripeId, type PaymentMethodState } from './state.js';

/** PaymentMethods (from raw card data) and Customers. */
export function createPaymentMethod(ctx: EngineCtx, params: FormObject): OpResult {
  if (str(params, 'type') !== 'card') throw invalidRequest('The stand-in supports only type=card.', { param: 'type' });
  const card = obj(params, 'card');
  const number = str(card, 'number');
  if (number !== undefined && !ctx.acct.rawCardData) {
    throw invalidRequest(
      'Sending credit card numbers directly to the Stripe API is generally unsafe. We suggest you use test tokens that map to the test card you are using, see https://stripe.com/docs/testing. To enable raw card data APIs in test mode, see https://support.stripe.com/questions/enabling-access-to-raw-card-data-apis.',
    );
  }
  if (number === undefined)
    throw invalidRequest('Missing required param: card[number].', { code: 'parameter_missing', param: 'card[number]' });
  const expMonth = Number(str(card, 'exp_month'));
  const expYear = Number(str(card, 'exp_year'));
  if (!luhnValid(number)) {
    throw cardError(
      { code: 'incorrect_number', declineCode: 'incorrect_number', message: 'Your card number is incorrect.' },
      {},
      'card[number]',
    );
  }
  if (!Number.isInteger(expMonth) || expMonth < 1 || expMonth > 12) {
    throw cardError(
      {
        code: 'invalid_expiry_month',
        declineCode: 'invalid_expiry_month',
        message: "Your card's expiration month is invalid.",
      },
      {},
      'card[exp_month]',
    );
  }
  const today = new Date(ctx.now);
  if (
    !Number.isInteger(expYear) ||
    expYear < today.getUTCFullYear() ||
    (expYear === today.getUTCFullYear() && expMonth < today.getUTCMonth() + 1)
  ) {
    throw cardError(
      {
        code: 'invalid_expiry_year',
        declineCode: 'invalid_expiry_year',
        message: "Your card's expiration year is invalid.",
      },
      {},
      'card[exp_year]',
    );
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

export function paymentMethod(ctx: EngineCtx, id: string, param = 'payment_method'): PaymentMethodState {
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
  if (!customerId)
    throw invalidRequest('Missing required param: customer.', { code: 'parameter_missing', param: 'customer' });
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
