import { sql } from 'drizzle-orm';
import { pgTable, text, integer, index, uniqueIndex, primaryKey } from 'drizzle-orm/pg-core';
import { merchants } from './merchants.js';
import { instant, money } from './columns.js';

export const transactions = pgTable(
  'transactions',
  {
    id: text('id').primaryKey(),
    merchantId: text('merchant_id')
      .notNull()
      .references(() => merchants.id),
    /** Null for renewal charges, which the merchant never sent. Unique per merchant for good. */
    relationId: text('relation_id'),
    requestId: text('request_id'),
    /** PAY, CHECKOUT, SUBSCRIPTION (first charge) or RENEWAL (renewal/retry charge). */
    paymentType: text('payment_type', { enum: ['PAY', 'CHECKOUT', 'SUBSCRIPTION', 'RENEWAL', 'CARD_CHECK'] }).notNull(),
    /** Status code: 100000, 100040, 100050, 200000, 300000, 300010, 300020, 400010, 400000. */
    status: integer('status').notNull(),
    amount: money('amount').notNull(),
    currency: text('currency').notNull(),
    txnAmount: money('txn_amount'),
    txnCurrency: text('txn_currency'),
    refundedAmount: money('refunded_amount').notNull().default(0),
    /** Refunds reserved but not yet settled by the channel. */
    refundReserved: money('refund_reserved').notNull().default(0),
    failReason: text('fail_reason'),
    subscriptionId: text('subscription_id'),
    billingRecordId: text('billing_record_id'),
    planId: text('plan_id'),
    userId: text('user_id'),
    cardBin: text('card_bin'),
    cardLast4: text('card_last4'),
    cardBrand: text('card_brand'),
    clientIp: text('client_ip'),
    returnUrl: text('return_url'),
    failedUrl: text('failed_url'),
    cancelUrl: text('cancel_url'),
    notifyUrl: text('notify_url'),
    billingAddress: text('billing_address'),
    shippingAddress: text('shipping_address'),
    items: text('items'),
    channel: text('channel').notNull().default('sandbox'),
    channelRef: text('channel_ref'),
    /** Hosted checkout / 3DS page token, single use, 30-minute expiry. */
    pageToken: text('page_token'),
    /** CARD_CHECK: the vaulted card this zero-amount check verifies before it replaces a subscription's card. */
    cardId: text('card_id'),
    pageExpiresAt: instant('page_expires_at'),
    checkoutDeclines: integer('checkout_declines').notNull().default(0),
    txnTime: instant('txn_time'),
    createdAt: instant('created_at').notNull(),
    updatedAt: instant('updated_at').notNull(),
  },
  (t) => [
    uniqueIndex('transactions_merchant_relation').on(t.merchantId, t.relationId),
    // Partial: only CHECKOUT / 3DS rows have a token, so a PAY writes no entry here.
    uniqueIndex('transactions_page_token').on(t.pageToken).where(sql`page_token IS NOT NULL`),
    index('transactions_merchant_created').on(t.merchantId, t.createdAt),
    // Abandoned 3DS / checkout sessions, found by the renewal run without a table scan.
    index('transactions_open_pages').on(t.pageExpiresAt).where(sql`status in (100040, 100050)`),
    // Charges a processor left in flight (Stripe: a timeout, still processing): the renewal run settles them.
    index('transactions_in_flight').on(t.updatedAt).where(sql`status = 100000 and channel_ref is not null`),
    // Charges started but never recorded (the process died mid-charge): the renewal run settles them.
    index('transactions_unrecorded').on(t.updatedAt).where(sql`status = 100000 and channel_ref is null`),
    // A subscription's card checks, counted against the card-update page's limit of declines.
    index('transactions_card_checks').on(t.subscriptionId, t.createdAt).where(sql`payment_type = 'CARD_CHECK'`),
  ],
);

export const refunds = pgTable(
  'refunds',
  {
    id: text('id').primaryKey(),
    merchantId: text('merchant_id').notNull(),
    transactionId: text('transaction_id')
      .notNull()
      .references(() => transactions.id),
    amount: money('amount').notNull(),
    currency: text('currency').notNull(),
    /** PENDING while the channel is called (amount reserved), then SUCCEEDED or FAILED. */
    status: text('status', { enum: ['PENDING', 'SUCCEEDED', 'FAILED'] }).notNull(),
    channelRef: text('channel_ref'),
    failReason: text('fail_reason'),
    createdAt: instant('created_at').notNull(),
    updatedAt: instant('updated_at').notNull(),
  },
  (t) => [
    index('refunds_transaction').on(t.transactionId),
    // Refunds left PENDING by a channel that threw: the renewal run's housekeeping re-drives them.
    index('refunds_pending').on(t.updatedAt).where(sql`status = 'PENDING'`),
  ],
);

/**
 * requestId idempotency for transactions and refunds (scope), per merchant. The request is
 * never stored, only a keyed hash of its canonical string, and the resource it made. The
 * primary key is what makes two instances racing on one requestId end with one resource.
 */
export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    merchantId: text('merchant_id').notNull(),
    scope: text('scope', { enum: ['transaction', 'refund'] }).notNull(),
    requestId: text('request_id').notNull(),
    requestHash: text('request_hash').notNull(),
    resourceId: text('resource_id').notNull(),
    createdAt: instant('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.merchantId, t.scope, t.requestId] })],
);

export const trackingEntries = pgTable(
  'tracking_entries',
  {
    id: text('id').primaryKey(),
    merchantId: text('merchant_id').notNull(),
    transactionId: text('transaction_id')
      .notNull()
      .references(() => transactions.id),
    trackingNo: text('tracking_no').notNull(),
    trackingChannel: text('tracking_channel').notNull(),
    trackUrl: text('track_url'),
    createdAt: instant('created_at').notNull(),
    updatedAt: instant('updated_at').notNull(),
  },
  (t) => [uniqueIndex('tracking_transaction_no').on(t.transactionId, t.trackingNo)],
);
