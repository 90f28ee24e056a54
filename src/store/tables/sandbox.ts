import { boolean, instant, money, table, text } from './define.js';

/**
 * The sandbox channel's own ledger (SPEC §9). Keyed by the caller's idempotency key so a
 * repeated charge or refund returns the first result and moves no money twice.
 */
export const sandboxCharges = table('sandbox_charges', {
  id: text().primaryKey(),
  idempotencyKey: text().notNull().unique(),
  kind: text(['charge', 'refund']).notNull(),
  /** For refunds: the charge refunded. */
  parentId: text(),
  amount: money().notNull(),
  currency: text().notNull(),
  cardBin: text(),
  cardLast4: text(),
  customerPresent: boolean().notNull(),
  /** approved | declined | requires_action (3DS pending) | failed (3DS failed). */
  outcome: text(['approved', 'declined', 'requires_action', 'failed']).notNull(),
  declineCode: text(),
  createdAt: instant().notNull(),
  updatedAt: instant().notNull(),
});
