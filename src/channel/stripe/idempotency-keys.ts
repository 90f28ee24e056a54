/**
 * Idempotency-Key values derived from paygate's own ids, so that a call repeated after a
 * timeout or a crash (same id, same attempt) reaches Stripe with the same key and Stripe
 * answers the first result instead of charging or refunding again. Stripe keeps a key 24 hours.
 *
 * A payment is up to four calls (PaymentMethod, Customer, PaymentIntent, confirm); each gets its own
 * key under the attempt's base key, so replaying one never collides with another.
 */
const ID = /^[A-Za-z0-9_-]{1,100}$/;

function checkId(what: string, id: string): void {
  if (!ID.test(id)) throw new Error(`stripe idempotency key: invalid ${what} ${JSON.stringify(id)}`);
}

function checkAttempt(attempt: number): void {
  if (!Number.isInteger(attempt) || attempt < 0 || attempt > 999)
    throw new Error(`stripe idempotency key: invalid attempt ${attempt}`);
}

/** A customer-present charge: the transaction and which card attempt (checkout allows three). */
export function paymentKey(transactionId: string, attempt: number): string {
  checkId('transaction id', transactionId);
  checkAttempt(attempt);
  return `paygate:${transactionId}:${attempt}`;
}

/** A renewal charge: the billing record and its attempt (0 = the renewal, 1..3 = retries). */
export function renewalKey(billingRecordId: string, attempt: number): string {
  checkId('billing record id', billingRecordId);
  checkAttempt(attempt);
  return `paygate:${billingRecordId}:${attempt}`;
}

export function refundKey(refundId: string): string {
  checkId('refund id', refundId);
  return `paygate:${refundId}`;
}

/** A card saved without a charge (a trial, a card update) uses setup_intent and setup_confirm instead of the intent's steps. */
export type PaymentStep =
  | 'payment_method'
  | 'customer'
  | 'payment_intent'
  | 'confirm'
  | 'setup_intent'
  | 'setup_confirm'
  /** An off-session renewal's intent, created and confirmed in one call. */
  | 'off_session';

export function stepKey(baseKey: string, step: PaymentStep): string {
  return `${baseKey}:${step}`;
}
