import { sql } from 'drizzle-orm';
import { sqliteTable, text, integer, index } from 'drizzle-orm/sqlite-core';
import { subscriptions } from './subscriptions.js';

export const billingRecords = sqliteTable(
  'billing_records',
  {
    id: text('id').primaryKey(),
    subscriptionId: text('subscription_id')
      .notNull()
      .references(() => subscriptions.id),
    merchantId: text('merchant_id').notNull(),
    billingType: text('billing_type', { enum: ['INITIAL', 'RENEW', 'RETRY', 'CHANGE'] }).notNull(),
    amount: integer('amount').notNull(),
    currency: text('currency').notNull(),
    scheduledTime: integer('scheduled_time').notNull(),
    actualTime: integer('actual_time'),
    status: text('status', { enum: ['PENDING', 'SUCCESS', 'FAILED', 'CANCELLED'] }).notNull(),
    transactionId: text('transaction_id'),
    failReason: text('fail_reason'),
    retryCount: integer('retry_count').notNull().default(0),
    /** Which anchor cycle this charge pays for (0 = the first period). */
    cycleIndex: integer('cycle_index').notNull().default(0),
    /** Claim lease (SPEC §7): a run owns the record until leaseUntil on its clock. */
    leaseOwner: text('lease_owner'),
    leaseUntil: integer('lease_until'),
    /** Carried credit (from a plan change) this charge spends besides its amount: amount + creditApplied = the plan's price. */
    creditApplied: integer('credit_applied').notNull().default(0),
    /** CHANGE: the credit granted for the unused part of the old plan's period (minor units). */
    creditGranted: integer('credit_granted').notNull().default(0),
    /** The plan this charge pays for; null on records written before plan changes existed (the subscription's plan). */
    planId: text('plan_id'),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [
    // The renewal run's due query reads only this partial index: cost follows due work.
    index('billing_records_due').on(t.scheduledTime).where(sql`status = 'PENDING'`),
    index('billing_records_subscription').on(t.subscriptionId, t.createdAt),
  ],
);
