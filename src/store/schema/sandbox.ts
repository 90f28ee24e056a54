import { sqliteTable, text, integer } from 'drizzle-orm/sqlite-core';

/**
 * The sandbox channel's own ledger (SPEC §9). Keyed by the caller's idempotency key so a
 * repeated charge or refund returns the first result and moves no money twice.
 */
export const sandboxCharges = sqliteTable('sandbox_charges', {
  id: text('id').primaryKey(),
  idempotencyKey: text('idempotency_key').notNull().unique(),
  kind: text('kind', { enum: ['charge', 'refund'] }).notNull(),
  /** For refunds: the charge refunded. */
  parentId: text('parent_id'),
  amount: integer('amount').notNull(),
  currency: text('currency').notNull(),
  cardBin: text('card_bin'),
  cardLast4: text('card_last4'),
  customerPresent: integer('customer_present', { mode: 'boolean' }).notNull(),
  /** approved | declined | requires_action (3DS pending) | failed (3DS failed). */
  outcome: text('outcome', { enum: ['approved', 'declined', 'requires_action', 'failed'] }).notNull(),
  declineCode: text('decline_code'),
  createdAt: integer('created_at').notNull(),
  updatedAt: integer('updated_at').notNull(),
});
