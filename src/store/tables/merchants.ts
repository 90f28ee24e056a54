import { instant, integer, table, text } from './define.js';

/** Instance settings fixed at creation (the time zone, SPEC §1), and the vault's bookkeeping. */
export const meta = table('meta', {
  key: text().primaryKey(),
  value: text().notNull(),
});

export const merchants = table('merchants', {
  id: text().primaryKey(),
  name: text().notNull(),
  apiKey: text().notNull().unique(),
  /** The apiKey before the last `merchant rotate-key`, accepted until prevApiKeyUntil (24 h, like secrets). */
  prevApiKey: text().unique(),
  prevApiKeyUntil: instant(),
  /** AES-256-GCM under the vault key; never stored in plain text. */
  secretEnc: text().notNull(),
  /** The secret before the last rotation, accepted until prevSecretUntil (24 h, SPEC §2). */
  prevSecretEnc: text(),
  prevSecretUntil: instant(),
  signatureVersion: integer().notNull().default(2),
  notifyUrl: text(),
  status: text(['ACTIVE', 'DISABLED']).notNull().default('ACTIVE'),
  /** Where its charges go: the built-in sandbox, or the merchant's own Stripe account. */
  channel: text(['sandbox', 'stripe']).notNull().default('sandbox'),
  /** The merchant's Stripe secret (or restricted) key and webhook signing secret, sealed like secretEnc. */
  stripeSecretKeyEnc: text(),
  stripeWebhookSecretEnc: text(),
  /** Identity printed on invoices and credit notes and used for customer email (SPEC §17). */
  legalName: text(),
  address: text(),
  taxId: text(),
  supportEmail: text(),
  emailFrom: text(),
  invoicePrefix: text().notNull().default('INV'),
  /**
   * The numbers the next invoice and credit note get. Taken in the unit of work that issues the
   * document (a rolled-back one gives its number back), and only ever moved forward.
   */
  invoiceNext: integer().notNull().default(1),
  creditNoteNext: integer().notNull().default(1),
  /** `merchant update --customer-emails on|off`, stored as written. */
  customerEmails: text(['on', 'off']).notNull().default('on'),
  /** What subscribers may do on the customer portal (SPEC §18): a comma-separated list, as written. */
  portalActions: text().notNull().default('cancel,update-card'),
  createdAt: instant().notNull(),
  updatedAt: instant().notNull(),
});
