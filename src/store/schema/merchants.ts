import { sqliteTable, text, integer } from 'drizzle-orm/sqlite-core';

/** Instance settings fixed at creation (the time zone, SPEC §1). */
export const meta = sqliteTable('meta', {
  key: text('key').primaryKey(),
  value: text('value').notNull(),
});

export const merchants = sqliteTable('merchants', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  apiKey: text('api_key').notNull().unique(),
  /** The apiKey before the last `merchant rotate-key`, accepted until prevApiKeyUntil (24 h, like secrets). */
  prevApiKey: text('prev_api_key').unique(),
  prevApiKeyUntil: integer('prev_api_key_until'),
  /** AES-256-GCM under the vault key; never stored in plain text. */
  secretEnc: text('secret_enc').notNull(),
  /** The secret before the last rotation, accepted until prevSecretUntil (24 h, SPEC §2). */
  prevSecretEnc: text('prev_secret_enc'),
  prevSecretUntil: integer('prev_secret_until'),
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
  createdAt: integer('created_at').notNull(),
  updatedAt: integer('updated_at').notNull(),
});
