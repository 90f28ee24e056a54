import { billingRecords } from './billing-records.js';
import { cards } from './cards.js';
import { coupons } from './coupons.js';
import { customerEmails } from './customer-emails.js';
import type { TableSpec } from './define.js';
import { creditNotes, invoices } from './documents.js';
import { merchants, meta } from './merchants.js';
import { outboxEvents } from './outbox.js';
import { plans } from './plans.js';
import { portalSessions } from './portal.js';
import { rateLimitWindows } from './rate-limits.js';
import { sandboxCharges } from './sandbox.js';
import { subscriptions } from './subscriptions.js';
import { idempotencyKeys, refunds, trackingEntries, transactions } from './transactions.js';

export {
  billingRecords,
  cards,
  coupons,
  creditNotes,
  customerEmails,
  idempotencyKeys,
  invoices,
  merchants,
  meta,
  outboxEvents,
  plans,
  portalSessions,
  rateLimitWindows,
  refunds,
  sandboxCharges,
  subscriptions,
  trackingEntries,
  transactions,
};

/**
 * Every table, parents before children (a table after every table its foreign keys point at):
 * the order both drizzle schemas are built in and `db copy` copies in.
 */
export const TABLES: readonly TableSpec[] = [
  meta,
  merchants,
  plans,
  coupons,
  cards,
  subscriptions,
  billingRecords,
  transactions,
  refunds,
  invoices,
  creditNotes,
  trackingEntries,
  idempotencyKeys,
  outboxEvents,
  customerEmails,
  sandboxCharges,
  portalSessions,
  rateLimitWindows,
];
