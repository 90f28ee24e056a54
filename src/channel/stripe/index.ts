/**
 * The Stripe channel's pure parts: the official client, paygate's idempotency keys, and every
 * Stripe answer mapped onto paygate's results. No store, no services: callers pass plain values.
 */
export { abandonIntent, abandonSetup, type AbandonInput, type StripeAbandonResult } from './cancel.js';
export { checkKey, type KeyCheck } from './account.js';
export { keyShapeError } from './key-shape.js';
export { createStripeClient } from './client.js';
export {
  parseStripeApiUrl,
  stripeApiUrlFrom,
  stripeTimeoutFrom,
  DEFAULT_STRIPE_API_URL,
  DEFAULT_STRIPE_TIMEOUT_MS,
} from './endpoint.js';
export { DECLINE_TABLE, failReasonOf } from './decline-codes.js';
export { paymentKey, refundKey, renewalKey, stepKey } from './idempotency-keys.js';
export {
  chargeOffSession,
  createAndConfirmPayment,
  resumePayment,
  retrieveIntent,
  type OffSessionInput,
  type PaymentInput,
  type ResumeInput,
} from './payments.js';
export {
  isSetupIntentId,
  mapSetupIntent,
  resumeSetup,
  retrieveSetup,
  setUpCard,
  type SetupInput,
} from './setup-intents.js';
export { refundPayment, retrieveRefund, type RefundInput } from './refunds.js';
export type * from './results.js';
export { verifyWebhook, type WebhookInput, type WebhookSettlement, type WebhookVerification } from './webhook.js';
