import Stripe from 'stripe';
import { failReasonOf } from './decline-codes.js';
import type { InFlight, Refused, StripeChargeResult, StripeRefundResult } from './results.js';

/** Stripe's messages carry no card numbers; this makes sure nothing that looks like one leaves. */
export function scrub(message: string): string {
  return message.replace(/\d[\d -]{10,22}\d/g, (m) =>
    m.replace(/\D/g, '').length >= 12 ? '[card number removed]' : m,
  );
}

/** A PaymentIntent as Stripe holds it now → paygate's result. */
export function mapIntent(pi: Stripe.PaymentIntent): StripeChargeResult {
  switch (pi.status) {
    case 'succeeded':
      return { outcome: 'approved', ref: pi.id };
    case 'processing':
      return { outcome: 'in_flight', cause: 'processing', ref: pi.id, mayHaveMoved: true };
    case 'requires_action': {
      const url = pi.next_action?.redirect_to_url?.url;
      // Without a redirect URL the action needs Stripe.js in the shopper's browser, which
      // paygate's server-side flow cannot hand over: no money moved, the shopper must retry.
      if (url) return { outcome: 'requires_action', ref: pi.id, redirectUrl: url };
      return {
        outcome: 'declined',
        ref: pi.id,
        reason: 'authentication_required',
        stripeCode: 'next_action_not_redirect',
      };
    }
    case 'requires_capture':
      // paygate captures automatically; an authorised but uncaptured intent is not final yet.
      return { outcome: 'in_flight', cause: 'processing', ref: pi.id, mayHaveMoved: true };
    case 'canceled':
      return {
        outcome: 'declined',
        ref: pi.id,
        reason: 'processing_error',
        stripeCode: `canceled:${pi.cancellation_reason ?? 'unknown'}`,
      };
    case 'requires_confirmation':
      // Created, never confirmed: nothing moved, and resumePayment can still confirm it.
      return { outcome: 'in_flight', cause: 'not_confirmed', ref: pi.id, mayHaveMoved: false };
    default: {
      // requires_payment_method: an attempt failed (or none was made); no money moved.
      const e = pi.last_payment_error;
      return {
        outcome: 'declined',
        ref: pi.id,
        reason: e ? failReasonOf(e.decline_code, e.code) : 'processing_error',
        stripeCode: e?.decline_code ?? e?.code ?? pi.status,
      };
    }
  }
}

function refused(cause: Refused['cause'], err: Stripe.errors.StripeError): Refused {
  return { outcome: 'refused', cause, stripeCode: err.code ?? null, message: scrub(err.message) };
}

/**
 * A thrown Stripe error that is not a card decline → in flight (maybe ran) or refused (did not
 * run). `mayHaveMoved` says whether the failed call was one that moves money. Anything that
 * is not a Stripe error is a bug and is rethrown.
 */
export function mapFault(err: unknown, mayHaveMoved: boolean): InFlight | Refused {
  const E = Stripe.errors;
  if (!(err instanceof E.StripeError)) throw err;
  if (err instanceof E.StripeConnectionError) {
    const detail = err.detail as { code?: string } | undefined;
    const timedOut = detail?.code === 'ETIMEDOUT' || /timeout/i.test(err.message);
    return { outcome: 'in_flight', cause: timedOut ? 'timeout' : 'network', ref: null, mayHaveMoved };
  }
  // A 429 ran nothing, so it cannot have moved money, whatever the call.
  if (err instanceof E.StripeRateLimitError)
    return { outcome: 'in_flight', cause: 'rate_limited', ref: null, mayHaveMoved: false };
  if (err instanceof E.StripeAuthenticationError) return refused('key_rejected', err);
  if (err instanceof E.StripePermissionError) return refused('permission_denied', err);
  if (err instanceof E.StripeIdempotencyError) return refused('idempotency_conflict', err);
  if (err.statusCode === 409) return { outcome: 'in_flight', cause: 'conflict', ref: null, mayHaveMoved };
  if (err instanceof E.StripeAPIError || (err.statusCode ?? 0) >= 500 || err.statusCode === undefined) {
    return { outcome: 'in_flight', cause: 'server_error', ref: null, mayHaveMoved };
  }
  return refused('invalid_request', err);
}

/** A thrown error from a call that charges (or creates the card): a decline, or a fault. */
export function mapChargeError(err: unknown, mayHaveMoved: boolean): StripeChargeResult {
  const E = Stripe.errors;
  if (err instanceof E.StripeCardError) {
    return {
      outcome: 'declined',
      ref: err.payment_intent?.id ?? null,
      reason: failReasonOf(err.decline_code, err.code),
      stripeCode: err.decline_code || err.code || null,
    };
  }
  if (err instanceof E.StripeInvalidRequestError && err.code === 'payment_intent_authentication_failure') {
    return {
      outcome: 'declined',
      ref: err.payment_intent?.id ?? null,
      reason: 'authentication_failed',
      stripeCode: err.code,
    };
  }
  return mapFault(err, mayHaveMoved);
}

export function mapRefund(r: Stripe.Refund): StripeRefundResult {
  switch (r.status) {
    case 'succeeded':
      return { outcome: 'refunded', ref: r.id };
    case 'pending':
    case 'requires_action':
      return { outcome: 'pending', ref: r.id };
    default:
      return { outcome: 'failed', ref: r.id, reason: r.failure_reason ?? r.status ?? 'failed' };
  }
}

/** Stripe refusing a refund of the charge itself: paygate's limits and Stripe's disagree. */
const REFUND_REFUSALS = new Set([
  'charge_already_refunded',
  'amount_too_large',
  'charge_not_refundable',
  'charge_disputed',
]);

export function mapRefundError(err: unknown): StripeRefundResult {
  if (err instanceof Stripe.errors.StripeInvalidRequestError && err.code && REFUND_REFUSALS.has(err.code)) {
    return { outcome: 'failed', ref: null, reason: err.code };
  }
  return mapFault(err, true);
}
