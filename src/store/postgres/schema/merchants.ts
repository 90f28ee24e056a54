import { pgTable, text, integer } from 'drizzle-orm/pg-core';
import { instant } from './columns.js';

/** Instance settings fixed at creation (the time zone). */
export const meta = pgTable('meta', {
  key: text('key').primaryKey(),
  value: text('value').notNull(),
});

export const merchants = pgTable('merchants', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  apiKey: text('api_key').notNull().unique(),
  /** The apiKey before the last `merchant rotate-key`, accepted until prevApiKeyUntil (24 h, like secrets). */
  prevApiKey: text('prev_api_key').unique(),
  prevApiKeyUntil: instant('prev_api_key_until'),
  /** AES-256-GCM under the vault key; never stored in plain text. */
  secretEnc: text('secret_enc').notNull(),
  /** The secret before the last rotation, accepted until prevSecretUntil (24 h). */
  prevSecretEnc: text('prev_secret_enc'),
  prevSecretUntil: instant('prev_secret_until'),
  signatureVersion: integer('signature_version').notNull().default(2),
  notifyUrl: text('notify_url'),
  status: text('status', { enum: ['ACTIVE', 'DISABLED'] })
    .notNull()
    .default('ACTIVE'),
  /** Where its charges go: the built-in sandbox, or the merchant's own Stripe account. */
  channel: text('channel', { enum: ['sandbox', 'stripe'] })
    .notNull()
    .default('sandbox'),
  /** The merchant's Stripe secret (or restricted) key and webhook signing secret, sealed like secretEnc. */
  stripeSecretKeyEnc: text('stripe_secret_key_enc'),
  stripeWebhookSecretEnc: text('stripe_webhook_secret_enc'),
  createdAt: instant('created_at').notNull(),
  updatedAt: instant('updated_at').notNull(),
});
