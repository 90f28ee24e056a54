import type { StripeFailReason } from './results.js';

/**
 * Stripe's `decline_code` (issuer's reason) or, failing that, its error `code`, onto paygate's
 * failReasons. Anything not listed is a plain card_declined: the shopper sees "declined"
 * rather than a reason paygate would be guessing.
 */
const TABLE: Record<string, StripeFailReason> = {
  insufficient_funds: 'insufficient_funds',
  expired_card: 'expired_card',
  incorrect_cvc: 'incorrect_cvc',
  invalid_cvc: 'incorrect_cvc',
  processing_error: 'processing_error',
  issuer_not_available: 'processing_error',
  reenter_transaction: 'processing_error',
  try_again_later: 'processing_error',
  authentication_required: 'authentication_required',
  payment_intent_authentication_failure: 'authentication_failed',
  setup_intent_authentication_failure: 'authentication_failed',
  generic_decline: 'card_declined',
  card_declined: 'card_declined',
};

export function failReasonOf(
  declineCode: string | null | undefined,
  code: string | null | undefined,
): StripeFailReason {
  return (declineCode ? TABLE[declineCode] : undefined) ?? (code ? TABLE[code] : undefined) ?? 'card_declined';
}

/** The table as documented (docs/stripe.md lists the same rows). */
export const DECLINE_TABLE: Readonly<Record<string, StripeFailReason>> = TABLE;
