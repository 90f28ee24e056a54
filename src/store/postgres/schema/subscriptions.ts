import { sql } from 'drizzle-orm';
import { pgTable, text, integer, index, uniqueIndex } from 'drizzle-orm/pg-core';
import { merchants } from './merchants.js';
import { plans } from './plans.js';
import { cards } from './cards.js';
import { instant, money } from './columns.js';

export const subscriptions = pgTable(
  'subscriptions',
  {
    id: text('id').primaryKey(),
    code: text('code').notNull().unique(),
    merchantId: text('merchant_id')
      .notNull()
      .references(() => merchants.id),
    planId: text('plan_id')
      .notNull()
      .references(() => plans.id),
    userId: text('user_id').notNull(),
    /** Null once the subscription has ended: its card data is deleted. */
    cardId: text('card_id').references(() => cards.id, { onDelete: 'set null' }),
    amount: money('amount').notNull(),
    currency: text('currency').notNull(),
    cycleType: text('cycle_type', { enum: ['DAILY', 'WEEKLY', 'MONTHLY', 'YEARLY'] }).notNull(),
    cycleLength: integer('cycle_length').notNull(),
    status: text('status', { enum: ['INCOMPLETE', 'ACTIVE', 'PAUSED', 'CANCELLED', 'FAILED', 'EXPIRED'] }).notNull(),
    /** Billing anchor instant: the calendar counts cycles from here (start, or trial end). */
    anchorTime: instant('anchor_time').notNull(),
    /** End of the period already paid for (or of the trial); drives endTime on cancel. */
    paidThrough: instant('paid_through'),
    startTime: instant('start_time').notNull(),
    endTime: instant('end_time'),
    cancelTime: instant('cancel_time'),
    notifyUrl: text('notify_url'),
    initialTransactionId: text('initial_transaction_id'),
    billingCount: integer('billing_count').notNull().default(0),
    failedCount: integer('failed_count').notNull().default(0),
    totalPaid: money('total_paid').notNull().default(0),
    /** Credit left over from a plan change, spent by the next charges (minor units). */
    credit: money('credit').notNull().default(0),
    /** A plan change asked for at period end: the next renewal charges this plan and anchors on it. */
    pendingPlanId: text('pending_plan_id').references(() => plans.id),
    /** The hosted card-update page's token (the updateCardUrl of RENEW_FAILED callbacks), while the subscription retries. */
    cardUpdateToken: text('card_update_token'),
    cardUpdateExpiresAt: instant('card_update_expires_at'),
    /**
     * Card checks made while the current link lives (its limit of three, SPEC §14): counted per
     * link, never by time, so the clocks of the run that issued it and the serve that checks agree.
     */
    cardUpdateChecks: integer('card_update_checks').notNull().default(0),
    createdAt: instant('created_at').notNull(),
    updatedAt: instant('updated_at').notNull(),
  },
  (t) => [
    index('subscriptions_merchant_user').on(t.merchantId, t.userId, t.createdAt),
    index('subscriptions_plan').on(t.planId),
    uniqueIndex('subscriptions_card_update_token').on(t.cardUpdateToken).where(sql`card_update_token IS NOT NULL`),
  ],
);
