import { index, instant, integer, money, table, text, uniqueIndex } from './define.js';
import { CYCLE_TYPES } from './plans.js';

export const subscriptions = table(
  'subscriptions',
  {
    id: text().primaryKey(),
    code: text().notNull().unique(),
    merchantId: text().notNull().references('merchants'),
    planId: text().notNull().references('plans'),
    userId: text().notNull(),
    /** Null once the subscription has ended: its card data is deleted (SPEC §6). */
    cardId: text().references('cards', 'id', 'set null'),
    amount: money().notNull(),
    currency: text().notNull(),
    cycleType: text(CYCLE_TYPES).notNull(),
    cycleLength: integer().notNull(),
    status: text(['INCOMPLETE', 'ACTIVE', 'PAUSED', 'CANCELLED', 'FAILED', 'EXPIRED']).notNull(),
    /** Billing anchor instant: the calendar counts cycles from here (start, or trial end). */
    anchorTime: instant().notNull(),
    /** End of the period already paid for (or of the trial); drives endTime on cancel. */
    paidThrough: instant(),
    startTime: instant().notNull(),
    endTime: instant(),
    cancelTime: instant(),
    notifyUrl: text(),
    initialTransactionId: text(),
    billingCount: integer().notNull().default(0),
    failedCount: integer().notNull().default(0),
    totalPaid: money().notNull().default(0),
    /** Credit left over from a plan change, spent by the next charges (minor units). */
    credit: money().notNull().default(0),
    /** A plan change asked for at period end: the next renewal charges this plan and anchors on it. */
    pendingPlanId: text().references('plans'),
    /** The hosted card-update page's token (the updateCardUrl of RENEW_FAILED callbacks), while the subscription retries. */
    cardUpdateToken: text(),
    cardUpdateExpiresAt: instant(),
    /**
     * Card checks made while the current link lives (its limit of three, SPEC §14): counted per
     * link, never by time, so the clocks of the run that issued it and the serve that checks agree.
     */
    cardUpdateChecks: integer().notNull().default(0),
    /** The coupon in force (SPEC §19): one at a time, a new one replaces it; null when none. */
    couponId: text().references('coupons'),
    couponCode: text(),
    /** When it was taken: a RETRY of a RENEW charged before this spends none of its cycles. */
    couponTakenAt: instant(),
    /** Paid charges it has discounted. */
    couponCyclesUsed: integer().notNull().default(0),
    /** Where customer emails go (SPEC §17): the first charge's billingAddress.email, then `subscription/update`. */
    email: text(),
    /**
     * JSON of the customer its invoices bill when a charge has no billingAddress of its own (a
     * renewal, a plan change): name and address of the first charge's, kept from the start; the
     * email on them is `email`'s as it is then.
     */
    customer: text(),
    /**
     * When the status last changed, written only by status changes (updatedAt moves with any
     * edit): the revenue report takes a PAUSED subscription's pause from it. Rows from before
     * the column took their updatedAt then.
     */
    statusChangedAt: instant(),
    createdAt: instant().notNull(),
    updatedAt: instant().notNull(),
  },
  {
    indexes: [
      index('subscriptions_merchant_user', ['merchantId', 'userId', 'createdAt']),
      index('subscriptions_plan', ['planId']),
      uniqueIndex('subscriptions_card_update_token', ['cardUpdateToken'], 'card_update_token IS NOT NULL'),
    ],
  },
);
