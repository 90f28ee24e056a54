import { instant, integer, table, text } from './define.js';

/**
 * Vaulted cards: only for subscriptions, PAN encrypted, CVV never. A card kept by Stripe has no
 * PAN at all: Stripe's Customer and PaymentMethod ids beside the display fields (SPEC §10).
 */
export const cards = table('cards', {
  id: text().primaryKey(),
  merchantId: text().notNull().references('merchants'),
  /** Null for a card kept by Stripe (channel 'stripe'). */
  panEnc: text(),
  /** The channel that holds the card: sandbox (panEnc) or stripe (the ids below). */
  channel: text(['sandbox', 'stripe']).notNull().default('sandbox'),
  stripeCustomerId: text(),
  stripePaymentMethodId: text(),
  bin: text().notNull(),
  last4: text().notNull(),
  brand: text().notNull(),
  expMonth: integer().notNull(),
  expYear: integer().notNull(),
  holderName: text(),
  createdAt: instant().notNull(),
});
