import { sql } from 'drizzle-orm';
import { pgTable, text, integer, index } from 'drizzle-orm/pg-core';
import { subscriptions } from './subscriptions.js';
import { instant, money } from './columns.js';

export const billingRecords = pgTable(
  'billing_records',
  {
    id: text('id').primaryKey(),
    subscriptionId: text('subscription_id')
      .notNull()
      .references(() => subscriptions.id),
    merchantId: text('merchant_id').notNull(),
    billingType: text('billing_type', { enum: ['INITIAL', 'RENEW', 'RETRY', 'CHANGE'] }).notNull(),
    amount: money('amount').notNull(),
    currency: text('currency').notNull(),
    scheduledTime: instant('scheduled_time').notNull(),
    actualTime: instant('actual_time'),
    status: text('status', { enum: ['PENDING', 'SUCCESS', 'FAILED', 'CANCELLED'] }).notNull(),
    transactionId: text('transaction_id'),
    failReason: text('fail_reason'),
    retryCount: integer('retry_count').notNull().default(0),
    /** Which anchor cycle this charge pays for (0 = the first period). */
    cycleIndex: integer('cycle_index').notNull().default(0),
    /** Claim lease: a run owns the record until leaseUntil on its clock. */
    leaseOwner: text('lease_owner'),
    leaseUntil: instant('lease_until'),
    /** Carried credit (from a plan change) this charge spends besides its amount: amount + creditApplied = the plan's price. */
    creditApplied: money('credit_applied').notNull().default(0),
    /** CHANGE: the credit granted for the unused part of the old plan's period (minor units). */
    creditGranted: money('credit_granted').notNull().default(0),
    /** The plan this charge pays for; null on records written before plan changes existed (the subscription's plan). */
    planId: text('plan_id'),
    createdAt: instant('created_at').notNull(),
  },
  (t) => [
    // The renewal run's due query reads only this partial index: cost follows due work.
    index('billing_records_due').on(t.scheduledTime).where(sql`status = 'PENDING'`),
    index('billing_records_subscription').on(t.subscriptionId, t.createdAt),
  ],
);
