import { index, instant, integer, money, table, text, uniqueIndex } from './define.js';

/** A merchant's coupons (SPEC §19). Every field but status and redemptions is immutable. */
export const coupons = table(
  'coupons',
  {
    id: text().primaryKey(),
    merchantId: text().notNull().references('merchants'),
    code: text().notNull(),
    /** Exactly one of percentBasisPoints (1–10000: hundredths of a percent) and amountOff (USD minor units). */
    percentBasisPoints: integer(),
    amountOff: money(),
    duration: text(['ONCE', 'REPEATING', 'FOREVER']).notNull(),
    /** REPEATING only. */
    cycles: integer(),
    redeemBy: instant(),
    maxRedemptions: integer(),
    /**
     * Subscriptions that took it. Raised by one conditional UPDATE whose WHERE is the whole check
     * (ACTIVE, before redeemBy, below maxRedemptions), so concurrent instances cannot overshoot.
     */
    redemptions: integer().notNull().default(0),
    /** The plans it is for, as a JSON array of plan ids; null for every plan of the merchant. */
    planIds: text(),
    status: text(['ACTIVE', 'INACTIVE']).notNull().default('ACTIVE'),
    createdAt: instant().notNull(),
  },
  {
    indexes: [
      uniqueIndex('coupons_merchant_code', ['merchantId', 'code']),
      index('coupons_merchant_created', ['merchantId', 'createdAt']),
    ],
  },
);
