import { index, instant, integer, serial, table, text } from './define.js';

/**
 * Customer emails (SPEC §17), an outbox beside the callbacks': written in the unit of work of
 * what it reports, composed and sent at delivery. `details` holds the facts of the event as they
 * were when it happened (amounts, plan name, links, a card's brand and last four digits — never
 * more of a card); the sender (merchant name, emailFrom, support email) is read at delivery.
 */
export const customerEmails = table(
  'customer_emails',
  {
    /** Insertion order: the list's order and the tie-break between emails due at once. */
    seq: serial(),
    id: text().notNull().unique(),
    merchantId: text().notNull(),
    kind: text(['receipt', 'credit-note', 'renewal-failed', 'card-expiring', 'subscription-ended']).notNull(),
    recipient: text().notNull(),
    subscriptionId: text(),
    transactionId: text(),
    recordId: text(),
    /**
     * One email per event however often it is reported (a card-expiring notice per renewal, a
     * renewal-failed per failed record): a second write with the same key writes nothing.
     */
    dedupeKey: text().unique(),
    details: text().notNull(),
    status: text(['PENDING', 'SENT', 'DEAD']).notNull().default('PENDING'),
    attempts: integer().notNull().default(0),
    nextAttemptAt: instant().notNull(),
    lastError: text(),
    leaseOwner: text(),
    leaseUntil: instant(),
    createdAt: instant().notNull(),
    sentAt: instant(),
  },
  {
    indexes: [
      index('customer_emails_due', ['nextAttemptAt', 'seq'], "status = 'PENDING'"),
      index('customer_emails_merchant', ['merchantId', 'seq']),
    ],
  },
);
