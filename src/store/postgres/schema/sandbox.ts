import { pgTable, text, boolean } from 'drizzle-orm/pg-core';
import { instant, money } from './columns.js';

/**
 * The sandbox channel's own ledger. Keyed by the caller's idempotency key so a repeated charge
 * or refund returns the first result and moves no money twice.
 */
export const sandboxCharges = pgTable('sandbox_charges', {
  id: text('id').primaryKey(),
  idempotencyKey: text('idempotency_key').notNull().unique(),
  kind: text('kind', { enum: ['charge', 'refund'] }).notNull(),
  /** For refunds: the charge refunded. */
  parentId: text('parent_id'),
  amount: money('amount').notNull(),
  currency: text('currency').notNull(),
  cardBin: text('card_bin'),
  cardLast4: text('card_last4'),
  customerPresent: boolean('customer_present').notNull(),
  /** approved | declined | requires_action (3DS pending) | failed (3DS failed). */
  outcome: text('outcome', { enum: ['approved', 'declined', 'requires_action', 'failed'] }).notNull(),
  declineCode: text('decline_code'),
  createdAt: instant('created_at').notNull(),
  updatedAt: instant('updated_at').notNull(),
});
