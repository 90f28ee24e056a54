import { index, instant, integer, money, table, text, uniqueIndex } from './define.js';

export const transactions = table(
  'transactions',
  {
    id: text().primaryKey(),
    merchantId: text().notNull().references('merchants').hotParent(),
    /** Null for renewal charges, which the merchant never sent. Unique per merchant for good. */
    relationId: text(),
    requestId: text(),
    /** PAY, CHECKOUT, SUBSCRIPTION (first charge), RENEWAL (renewal/retry charge) or CARD_CHECK. */
    paymentType: text(['PAY', 'CHECKOUT', 'SUBSCRIPTION', 'RENEWAL', 'CARD_CHECK']).notNull(),
    /** SPEC §5 status code: 100000, 100040, 100050, 200000, 300000, 300010, 300020, 400010, 400000. */
    status: integer().notNull(),
    amount: money().notNull(),
    currency: text().notNull(),
    txnAmount: money(),
    txnCurrency: text(),
    refundedAmount: money().notNull().default(0),
    /** Refunds reserved but not yet settled by the channel (SPEC §5 Refunds). */
    refundReserved: money().notNull().default(0),
    failReason: text(),
    subscriptionId: text(),
    billingRecordId: text(),
    planId: text(),
    userId: text(),
    cardBin: text(),
    cardLast4: text(),
    cardBrand: text(),
    clientIp: text(),
    returnUrl: text(),
    failedUrl: text(),
    cancelUrl: text(),
    notifyUrl: text(),
    billingAddress: text(),
    shippingAddress: text(),
    items: text(),
    channel: text().notNull().default('sandbox'),
    channelRef: text(),
    /** Hosted checkout / 3DS page token (SPEC §11), single use, 30-minute expiry. */
    pageToken: text(),
    /** CARD_CHECK: the vaulted card this zero-amount check verifies before it replaces a subscription's card. */
    cardId: text(),
    pageExpiresAt: instant(),
    /**
     * An open page's card being charged now (a checkout submit, a 3DS completion): until then a
     * cancel (the page's, the subscription's) leaves the page to the charge, whose result is
     * recorded. Null when no charge is under way.
     */
    chargeHeldUntil: instant(),
    checkoutDeclines: integer().notNull().default(0),
    txnTime: instant(),
    createdAt: instant().notNull(),
    updatedAt: instant().notNull(),
  },
  {
    indexes: [
      uniqueIndex('transactions_merchant_relation', ['merchantId', 'relationId']),
      // Partial: only CHECKOUT / 3DS rows have a token, so a PAY writes no entry here.
      uniqueIndex('transactions_page_token', ['pageToken'], 'page_token IS NOT NULL'),
      index('transactions_merchant_created', ['merchantId', 'createdAt']),
      // Abandoned 3DS / checkout sessions, found by the renewal run without a table scan.
      index('transactions_open_pages', ['pageExpiresAt'], 'status in (100040, 100050)'),
      // Charges a processor left in flight (Stripe: a timeout, still processing): the renewal run settles them.
      index('transactions_in_flight', ['updatedAt'], 'status = 100000 and channel_ref is not null'),
      // Charges started but never recorded (the process died mid-charge): the renewal run settles them.
      index('transactions_unrecorded', ['updatedAt'], 'status = 100000 and channel_ref is null'),
      // A subscription's card checks: the card-update page takes one card at a time (openCardCheckId).
      index('transactions_card_checks', ['subscriptionId', 'createdAt'], "payment_type = 'CARD_CHECK'"),
      // A Stripe webhook's PaymentIntent, found without reading the merchant's other charges.
      // Partial: a sandbox charge's reference is never looked up, so a PAY writes no entry here.
      index('transactions_stripe_ref', ['channelRef'], "channel = 'stripe' and channel_ref is not null"),
    ],
  },
);

export const refunds = table(
  'refunds',
  {
    id: text().primaryKey(),
    merchantId: text().notNull(),
    transactionId: text().notNull().references('transactions'),
    amount: money().notNull(),
    currency: text().notNull(),
    /** PENDING while the channel is called (amount reserved), then SUCCEEDED or FAILED. */
    status: text(['PENDING', 'SUCCEEDED', 'FAILED']).notNull(),
    channelRef: text(),
    failReason: text(),
    createdAt: instant().notNull(),
    updatedAt: instant().notNull(),
  },
  {
    indexes: [
      index('refunds_transaction', ['transactionId']),
      // Refunds left PENDING by a channel that threw: the renewal run's housekeeping re-drives them.
      index('refunds_pending', ['updatedAt'], "status = 'PENDING'"),
      // A Stripe webhook's Refund, found without reading the merchant's other refunds.
      index('refunds_channel_ref', ['channelRef'], 'channel_ref is not null'),
    ],
  },
);

/**
 * requestId idempotency for transactions and refunds (scope), per merchant; and, for refunds and
 * tracking uploads sent without a requestId, idempotency on their signature (the *-signature
 * scopes, SPEC §4 Replays; requestId then holds a keyed hash of the signature). The request is
 * never stored, only its fingerprint (an HMAC under a vault-derived key over its canonical JSON,
 * vault/fingerprint.ts; SPEC §5, §10), and the resource it made. The primary key is what makes
 * two instances racing on one requestId end with one resource.
 */
export const idempotencyKeys = table(
  'idempotency_keys',
  {
    merchantId: text().notNull(),
    scope: text(['transaction', 'refund', 'refund-signature', 'tracking-signature']).notNull(),
    requestId: text().notNull(),
    requestHash: text().notNull(),
    resourceId: text().notNull(),
    createdAt: instant().notNull(),
  },
  { primaryKey: ['merchantId', 'scope', 'requestId'] },
);

export const trackingEntries = table(
  'tracking_entries',
  {
    id: text().primaryKey(),
    merchantId: text().notNull(),
    transactionId: text().notNull().references('transactions'),
    trackingNo: text().notNull(),
    trackingChannel: text().notNull(),
    trackUrl: text(),
    createdAt: instant().notNull(),
    updatedAt: instant().notNull(),
  },
  { indexes: [uniqueIndex('tracking_transaction_no', ['transactionId', 'trackingNo'])] },
);
