import { sqliteTable, text, integer } from 'drizzle-orm/sqlite-core';
import { merchants } from './merchants.js';

/**
 * Vaulted cards: only for subscriptions, PAN encrypted, CVV never. A card kept by Stripe has no
 * PAN at all: Stripe's Customer and PaymentMethod ids beside the display fields (SPEC §10). */
export const cards = sqliteTable('cards', {
  id: text('id').primaryKey(),
  merchantId: text('merchant_id')
    .notNull()
    .references(() => merchants.id),
  /** Null for a card kept by Stripe (channel 'stripe'). */
  panEnc: text('pan_enc'),
  /** The channel that holds the card: sandbox (panEnc) or stripe (the ids below). */
  channel: text('channel', { enum: ['sandbox', 'stripe'] })
    .notNull()
    .default('sandbox'),
  stripeCustomerId: text('stripe_customer_id'),
  stripePaymentMethodId: text('stripe_payment_method_id'),
  bin: text('bin').notNull(),
  last4: text('last4').notNull(),
  brand: text('brand').notNull(),
  expMonth: integer('exp_month').notNull(),
  expYear: integer('exp_year').notNull(),
  holderName: text('holder_name'),
  createdAt: integer('created_at').notNull(),
});
