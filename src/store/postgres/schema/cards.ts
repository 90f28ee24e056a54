import { pgTable, text, integer } from 'drizzle-orm/pg-core';
import { merchants } from './merchants.js';
import { instant } from './columns.js';

/** Vaulted cards: only for subscriptions, PAN encrypted, CVV never. */
export const cards = pgTable('cards', {
  id: text('id').primaryKey(),
  merchantId: text('merchant_id').notNull().references(() => merchants.id),
  panEnc: text('pan_enc').notNull(),
  bin: text('bin').notNull(),
  last4: text('last4').notNull(),
  brand: text('brand').notNull(),
  expMonth: integer('exp_month').notNull(),
  expYear: integer('exp_year').notNull(),
  holderName: text('holder_name'),
  createdAt: instant('created_at').notNull(),
});
