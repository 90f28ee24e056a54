import { fixture, type StripeJson } from './fixtures.js';
import type {
  AccountState,
  ChargeState,
  CustomerState,
  IntentState,
  LastError,
  PaymentMethodState,
  RefundState,
} from './state.js';

/**
 * State → the JSON Stripe answers. Each object is the fixture with only the fields the scenario
 * decides replaced (ids, amounts, statuses, links between objects), plus the fixture's
 * placeholder values that would contradict the scenario (a canceled_at on a live intent,
 * a Connect transfer on a plain charge) set to what Stripe sends in their absence.
 */
const secs = (ms: number) => Math.floor(ms / 1000);

export function renderPaymentMethod(pm: PaymentMethodState): StripeJson {
  const o = fixture('payment_method');
  const card = o.card as StripeJson;
  Object.assign(card, {
    brand: pm.brand,
    display_brand: pm.brand,
    exp_month: pm.expMonth,
    exp_year: pm.expYear,
    fingerprint: pm.fingerprint,
    last4: pm.last4,
    networks: { available: [pm.brand], preferred: null },
    wallet: null,
    generated_from: null,
  });
  Object.assign(o, {
    id: pm.id,
    created: secs(pm.created),
    customer: pm.customerId,
    metadata: pm.metadata,
    billing_details: {
      address: { city: null, country: null, line1: null, line2: null, postal_code: null, state: null },
      email: null,
      name: pm.name,
      phone: null,
      tax_id: null,
    },
  });
  return o;
}

export function renderCustomer(c: CustomerState): StripeJson {
  const o = fixture('customer');
  Object.assign(o, {
    id: c.id,
    created: secs(c.created),
    email: c.email,
    name: c.name,
    description: c.description,
    metadata: c.metadata,
    discount: null,
    currency: null,
  });
  return o;
}

function renderLastError(acct: AccountState, e: LastError | null): StripeJson | null {
  if (!e) return null;
  const pm = e.paymentMethodId ? acct.paymentMethods.get(e.paymentMethodId) : undefined;
  return {
    type: e.type,
    code: e.code,
    decline_code: e.declineCode ?? undefined,
    message: e.message,
    charge: e.chargeId ?? undefined,
    doc_url: `https://stripe.com/docs/error-codes/${e.code.replaceAll('_', '-')}`,
    payment_method: pm ? renderPaymentMethod(pm) : undefined,
  };
}

export function renderIntent(acct: AccountState, pi: IntentState, baseUrl: string): StripeJson {
  const o = fixture('payment_intent');
  const latest = pi.chargeIds.at(-1) ?? null;
  Object.assign(o, {
    id: pi.id,
    created: secs(pi.created),
    client_secret: pi.clientSecret,
    amount: pi.amount,
    amount_received: pi.status === 'succeeded' ? pi.amount : 0,
    currency: pi.currency,
    customer: pi.customerId,
    payment_method: pi.paymentMethodId,
    status: pi.status,
    setup_future_usage: pi.setupFutureUsage,
    latest_charge: latest,
    last_payment_error: renderLastError(acct, pi.lastError),
    next_action:
      pi.status === 'requires_action'
        ? pi.returnUrl
          ? {
              type: 'redirect_to_url',
              redirect_to_url: {
                return_url: pi.returnUrl,
                url: `${baseUrl}/3ds/${pi.id}?client_secret=${encodeURIComponent(pi.clientSecret)}`,
              },
            }
          : {
              type: 'use_stripe_sdk',
              use_stripe_sdk: { type: 'three_d_secure_redirect', source: `src_${pi.id.slice(3)}` },
            }
        : null,
    description: pi.description,
    metadata: pi.metadata,
    automatic_payment_methods: null,
    payment_method_types: ['card'],
    payment_method_configuration_details: null,
    canceled_at: pi.canceledAt ? secs(pi.canceledAt) : null,
    cancellation_reason: pi.cancellationReason ?? null,
    processing: pi.status === 'processing' ? { type: 'card', card: {} } : null,
    transfer_data: null,
    shipping: null,
    amount_details: { tip: {} },
  });
  return o;
}

export function renderRefund(r: RefundState): StripeJson {
  const o = fixture('refund');
  Object.assign(o, {
    id: r.id,
    created: secs(r.created),
    amount: r.amount,
    currency: r.currency,
    charge: r.chargeId,
    payment_intent: r.intentId,
    status: r.status,
    reason: r.reason,
    metadata: r.metadata,
    failure_reason: r.failureReason ?? undefined,
    balance_transaction: null,
  });
  return o;
}

export function renderCharge(acct: AccountState, ch: ChargeState): StripeJson {
  const o = fixture('charge');
  const pm = acct.paymentMethods.get(ch.paymentMethodId);
  const refunds = [...acct.refunds.values()].filter((r) => r.chargeId === ch.id);
  const refunded = refunds
    .filter((r) => r.status === 'pending' || r.status === 'succeeded')
    .reduce((s, r) => s + r.amount, 0);
  const details = (o.payment_method_details as StripeJson).card as StripeJson;
  if (pm) {
    Object.assign(details, {
      brand: pm.brand,
      exp_month: pm.expMonth,
      exp_year: pm.expYear,
      fingerprint: pm.fingerprint,
      last4: pm.last4,
      network: pm.brand,
      wallet: null,
    });
  }
  Object.assign(o, {
    id: ch.id,
    created: secs(ch.created),
    amount: ch.amount,
    amount_captured: ch.succeeded ? ch.amount : 0,
    amount_refunded: refunded,
    refunded: ch.succeeded && refunded >= ch.amount,
    captured: ch.succeeded,
    paid: ch.succeeded,
    status: ch.succeeded ? 'succeeded' : 'failed',
    currency: ch.currency,
    customer: ch.customerId,
    payment_intent: ch.intentId,
    payment_method: ch.paymentMethodId,
    failure_code: ch.decline?.code ?? null,
    failure_message: ch.decline?.message ?? null,
    outcome: {
      advice_code: null,
      network_advice_code: null,
      network_decline_code: null,
      network_status: ch.succeeded ? 'approved_by_network' : 'declined_by_network',
      reason: ch.decline?.declineCode ?? null,
      risk_level: 'normal',
      seller_message: ch.succeeded
        ? 'Payment complete.'
        : 'The bank did not return any further details with this decline.',
      type: ch.succeeded ? 'authorized' : 'issuer_declined',
    },
    refunds: { object: 'list', data: refunds.map(renderRefund), has_more: false, url: `/v1/charges/${ch.id}/refunds` },
    description: null,
    source: null,
    transfer_data: null,
    shipping: null,
  });
  return o;
}
