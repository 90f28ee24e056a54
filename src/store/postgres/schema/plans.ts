import { pgTable, text, integer, index } from 'drizzle-orm/pg-core';
import { merchants } from './merchants.js';
import { instant, money } from './columns.js';

export const plans = pgTable(
  'plans',
  {
    id: text('id').primaryKey(),
    merchantId: text('merchant_id')
      .notNull()
      .references(() => merchants.id),
    name: text('name').notNull(),
    description: text('description'),
    /** Minor units of `currency`. */
    price: money('price').notNull(),
    currency: text('currency').notNull(),
    cycleType: text('cycle_type', { enum: ['DAILY', 'WEEKLY', 'MONTHLY', 'YEARLY'] }).notNull(),
    cycleLength: integer('cycle_length').notNull(),
    trialDays: integer('trial_days').notNull().default(0),
    /** 0 = unlimited. */
    maxSubscriptions: integer('max_subscriptions').notNull().default(0),
    /**
     * INCOMPLETE + ACTIVE + PAUSED subscriptions, maintained in the same transaction as every
     * subscription status change so the maxSubscriptions check is one conditional UPDATE
     * (a row lock on PostgreSQL, so concurrent instances cannot overshoot).
     */
    currentSubscriptions: integer('current_subscriptions').notNull().default(0),
    status: text('status', { enum: ['ACTIVE', 'INACTIVE'] })
      .notNull()
      .default('ACTIVE'),
    createdAt: instant('created_at').notNull(),
  },
  (t) => [index('plans_merchant_created').on(t.merchantId, t.createdAt)],
);
