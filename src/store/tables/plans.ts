import { index, instant, integer, money, table, text } from './define.js';

export const CYCLE_TYPES = ['DAILY', 'WEEKLY', 'MONTHLY', 'YEARLY'] as const;

export const plans = table(
  'plans',
  {
    id: text().primaryKey(),
    merchantId: text().notNull().references('merchants'),
    name: text().notNull(),
    description: text(),
    /** Minor units of `currency`. */
    price: money().notNull(),
    currency: text().notNull(),
    cycleType: text(CYCLE_TYPES).notNull(),
    cycleLength: integer().notNull(),
    trialDays: integer().notNull().default(0),
    /** 0 = unlimited. */
    maxSubscriptions: integer().notNull().default(0),
    /**
     * INCOMPLETE + ACTIVE + PAUSED subscriptions. Maintained in the same transaction as every
     * subscription status change so the maxSubscriptions check is one conditional UPDATE (a row
     * lock on PostgreSQL, so concurrent instances cannot overshoot).
     */
    currentSubscriptions: integer().notNull().default(0),
    status: text(['ACTIVE', 'INACTIVE']).notNull().default('ACTIVE'),
    createdAt: instant().notNull(),
  },
  { indexes: [index('plans_merchant_created', ['merchantId', 'createdAt'])] },
);
