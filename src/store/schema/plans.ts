import { sqliteTable, text, integer, index } from 'drizzle-orm/sqlite-core';
import { merchants } from './merchants.js';

export const plans = sqliteTable(
  'plans',
  {
    id: text('id').primaryKey(),
    merchantId: text('merchant_id')
      .notNull()
      .references(() => merchants.id),
    name: text('name').notNull(),
    description: text('description'),
    /** Minor units of `currency`. */
    price: integer('price').notNull(),
    currency: text('currency').notNull(),
    cycleType: text('cycle_type', { enum: ['DAILY', 'WEEKLY', 'MONTHLY', 'YEARLY'] }).notNull(),
    cycleLength: integer('cycle_length').notNull(),
    trialDays: integer('trial_days').notNull().default(0),
    /** 0 = unlimited. */
    maxSubscriptions: integer('max_subscriptions').notNull().default(0),
    /**
     * INCOMPLETE + ACTIVE + PAUSED subscriptions. Maintained in the same transaction as every
     * subscription status change so the maxSubscriptions check is one conditional UPDATE.
     */
    currentSubscriptions: integer('current_subscriptions').notNull().default(0),
    status: text('status', { enum: ['ACTIVE', 'INACTIVE'] })
      .notNull()
      .default('ACTIVE'),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [index('plans_merchant_created').on(t.merchantId, t.createdAt)],
);
