import { sql } from 'drizzle-orm';
import { pgTable, text, integer, bigint, index } from 'drizzle-orm/pg-core';
import { instant } from './columns.js';

/**
 * Callback events, written in the same database transaction as the change they report.
 * `payload` is the complete callback body (every value a string, eventId included, `sign` not
 * yet added); signing happens at delivery with the merchant's current secret.
 */
export const outboxEvents = pgTable(
  'outbox_events',
  {
    /**
     * Insertion order; per-subscription delivery order follows it. An identity BY DEFAULT (not
     * ALWAYS) so a copy from another database can keep the original numbers.
     */
    seq: bigint('seq', { mode: 'number' }).primaryKey().generatedByDefaultAsIdentity(),
    id: text('id').notNull().unique(),
    merchantId: text('merchant_id').notNull(),
    kind: text('kind', { enum: ['PAYMENT', 'SUBSCRIPTION'] }).notNull(),
    eventType: text('event_type').notNull(),
    transactionId: text('transaction_id'),
    subscriptionId: text('subscription_id'),
    /** The transaction's or subscription's notifyUrl at write time; null → the merchant's at delivery. */
    notifyUrl: text('notify_url'),
    payload: text('payload').notNull(),
    status: text('status', { enum: ['PENDING', 'DELIVERED', 'DEAD'] })
      .notNull()
      .default('PENDING'),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: instant('next_attempt_at').notNull(),
    lastHttpStatus: integer('last_http_status'),
    lastError: text('last_error'),
    leaseOwner: text('lease_owner'),
    leaseUntil: instant('lease_until'),
    createdAt: instant('created_at').notNull(),
    deliveredAt: instant('delivered_at'),
  },
  (t) => [
    index('outbox_due').on(t.nextAttemptAt, t.seq).where(sql`status = 'PENDING'`),
    // Partial: only subscription events are ordered; a payment's event writes no entry here.
    index('outbox_subscription').on(t.subscriptionId, t.seq).where(sql`subscription_id IS NOT NULL`),
  ],
);
