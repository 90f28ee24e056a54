import { index, instant, integer, serial, table, text } from './define.js';

/**
 * Callback events (SPEC §8), written in the same database transaction as the change they
 * report. `payload` is the complete callback body (every value a string, eventId included,
 * `sign` not yet added); signing happens at delivery with the merchant's current secret.
 */
export const outboxEvents = table(
  'outbox_events',
  {
    /** Insertion order; per-subscription delivery order follows it. */
    seq: serial(),
    id: text().notNull().unique(),
    merchantId: text().notNull(),
    kind: text(['PAYMENT', 'SUBSCRIPTION']).notNull(),
    eventType: text().notNull(),
    transactionId: text(),
    subscriptionId: text(),
    /** The transaction's or subscription's notifyUrl at write time; null → the merchant's at delivery. */
    notifyUrl: text(),
    payload: text().notNull(),
    status: text(['PENDING', 'DELIVERED', 'DEAD']).notNull().default('PENDING'),
    attempts: integer().notNull().default(0),
    nextAttemptAt: instant().notNull(),
    lastHttpStatus: integer(),
    lastError: text(),
    leaseOwner: text(),
    leaseUntil: instant(),
    createdAt: instant().notNull(),
    deliveredAt: instant(),
  },
  {
    indexes: [
      index('outbox_due', ['nextAttemptAt', 'seq'], "status = 'PENDING'"),
      // Partial: only subscription events are ordered; a payment's event writes no entry here.
      index('outbox_subscription', ['subscriptionId', 'seq'], 'subscription_id IS NOT NULL'),
    ],
  },
);
