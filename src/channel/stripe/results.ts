import type { FailReason } from '../channel.js';

/**
 * What the Stripe adapter answers, in paygate's terms. Services never see Stripe's types.
 *
 * Proposed for channel.ts (the lead merges it into the interface): beside approved / declined /
 * requires_action, a charge or refund can be `in_flight` — Stripe may have moved the money or
 * may still move it (a timeout, a network error, a 5xx, a 429, an intent still `processing`).
 * An in-flight result is never a decline: the caller keeps the transaction in progress and
 * settles it later by retrying with the SAME idempotency key or by retrieving the intent.
 * And a request can be `refused`: Stripe did not run it at all (revoked key, missing permission,
 * a request it rejects), so nothing moved and repeating it will not help until the merchant's
 * Stripe set-up changes.
 */
export type StripeFailReason = FailReason | 'authentication_required';

export type InFlightCause =
  /** Stripe accepted the charge and will settle it later (webhook or retrieve). */
  | 'processing'
  /** No answer within the client's timeout: the call may or may not have run. */
  | 'timeout'
  /** The connection failed (refused, reset, DNS): the call may or may not have run. */
  | 'network'
  /** Stripe answered 5xx. */
  | 'server_error'
  /** Stripe answered 429: nothing ran; try again later with the same key. */
  | 'rate_limited'
  /** Stripe answered 409: another request with the same idempotency key is still running. */
  | 'conflict'
  /** The intent exists but its confirm never ran (a fault before it): resumePayment confirms it. */
  | 'not_confirmed';

export interface InFlight {
  outcome: 'in_flight';
  cause: InFlightCause;
  /** The PaymentIntent (or Refund) Stripe is known to have created, when known. */
  ref: string | null;
  /**
   * false: the fault came before any call that moves money (creating the PaymentMethod or
   * Customer), so nothing was charged or refunded. true: the money-moving call was sent.
   */
  mayHaveMoved: boolean;
}

export type RefusedCause =
  /** 401: the secret key is unknown, rolled or deleted. */
  | 'key_rejected'
  /** 403: a restricted key without the permission this call needs. */
  | 'permission_denied'
  /** 400/404: Stripe rejected the request itself (e.g. raw card data APIs not enabled). */
  | 'invalid_request'
  /** 400 idempotency_error: the key was used before with other parameters (a bug in the caller). */
  | 'idempotency_conflict';

export interface Refused {
  outcome: 'refused';
  cause: RefusedCause;
  /** Stripe's error code when it sent one (api_key_expired, parameter_missing, …). */
  stripeCode: string | null;
  /** Stripe's message, without anything that looks like a card number. */
  message: string;
}

export type StripeChargeResult =
  | { outcome: 'approved'; ref: string }
  /** ref is null when the card was declined before an intent existed (e.g. incorrect_number). */
  | { outcome: 'declined'; ref: string | null; reason: StripeFailReason; stripeCode: string | null; unmade?: true }
  /** redirectUrl: Stripe's next_action URL the shopper is sent to (from paygate's own 3DS page). */
  | { outcome: 'requires_action'; ref: string; redirectUrl: string }
  | InFlight
  | Refused;

/** What paygate keeps for a card on Stripe: ids and display fields, never the number. */
export interface StripeCardOnFile {
  paymentMethodId: string;
  customerId: string | null;
  brand: string;
  last4: string;
  expMonth: number;
  expYear: number;
}

/** A customer-present payment also says which card Stripe now holds, once it knows. */
export type StripePaymentResult = StripeChargeResult & { card: StripeCardOnFile | null };

export type StripeRefundResult =
  | { outcome: 'refunded'; ref: string }
  /** Stripe accepted the refund; it settles later (refund.updated, or retrieveRefund). */
  | { outcome: 'pending'; ref: string }
  /** The refund failed or Stripe would not refund (charge_already_refunded, amount_too_large, …). */
  | { outcome: 'failed'; ref: string | null; reason: string }
  | InFlight
  | Refused;
