import { index, instant, money, table, text, uniqueIndex } from './define.js';

/**
 * Invoices and credit notes (SPEC §17): written once, in the unit of work that records the charge
 * or refund, and never updated. The seller's identity is copied from the merchant's row by the
 * same statement that takes the number (under that row's lock), so a document shows the merchant
 * as it was when the number was taken; `customer` and `document` hold the rest as JSON.
 */
const seller = {
  sellerName: text().notNull(),
  legalName: text(),
  address: text(),
  taxId: text(),
  supportEmail: text(),
};

export const invoices = table(
  'invoices',
  {
    id: text().primaryKey(),
    merchantId: text().notNull().references('merchants').hotParent(),
    number: text().notNull(),
    /** The hosted page's unguessable key (`/invoice/{token}`). */
    token: text().notNull().unique(),
    /** One invoice per charge: a second issue for the same transaction is a unique violation. */
    transactionId: text().notNull().unique().references('transactions'),
    subscriptionId: text(),
    userId: text(),
    currency: text().notNull(),
    total: money().notNull(),
    issuedAt: instant().notNull(),
    ...seller,
    /**
     * JSON of the customer billed: the charge's billingAddress, else (a renewal, a plan change)
     * the subscription's customer with its email (subscriptions.customer).
     */
    customer: text().notNull(),
    /** JSON: lines, payment, relationId, subscriptionCode. */
    document: text().notNull(),
  },
  {
    indexes: [
      uniqueIndex('invoices_merchant_number', ['merchantId', 'number']),
      index('invoices_merchant_issued', ['merchantId', 'issuedAt']),
      index('invoices_subscription', ['subscriptionId', 'issuedAt']),
      index('invoices_merchant_user', ['merchantId', 'userId', 'issuedAt']),
    ],
  },
);

export const creditNotes = table(
  'credit_notes',
  {
    id: text().primaryKey(),
    merchantId: text().notNull().references('merchants'),
    number: text().notNull(),
    /**
     * The hosted page's unguessable key (`/credit-note/{token}`). Null only on credit notes issued
     * before credit notes had pages: the first read that needs their link gives them one
     * (services/documents/credit-note-links.ts), since a migration cannot draw a random token.
     */
    token: text().unique(),
    /** One credit note per refund. */
    refundId: text().notNull().unique().references('refunds'),
    transactionId: text().notNull().references('transactions'),
    /** The invoice credited; null for a charge made before invoices were issued. */
    invoiceId: text().references('invoices'),
    invoiceNumber: text(),
    currency: text().notNull(),
    /** The refunded amount, positive. */
    amount: money().notNull(),
    issuedAt: instant().notNull(),
    ...seller,
    /** JSON of the customer, as on the invoice credited. */
    customer: text().notNull(),
    /** JSON: relationId. */
    document: text().notNull(),
  },
  {
    indexes: [
      uniqueIndex('credit_notes_merchant_number', ['merchantId', 'number']),
      index('credit_notes_invoice', ['invoiceId', 'issuedAt']),
      index('credit_notes_transaction', ['transactionId']),
    ],
  },
);
