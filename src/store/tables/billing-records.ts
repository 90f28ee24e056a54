import { index, instant, integer, money, table, text } from './define.js';

export const billingRecords = table(
  'billing_records',
  {
    id: text().primaryKey(),
    subscriptionId: text().notNull().references('subscriptions'),
    merchantId: text().notNull(),
    billingType: text(['INITIAL', 'RENEW', 'RETRY', 'CHANGE']).notNull(),
    amount: money().notNull(),
    currency: text().notNull(),
    scheduledTime: instant().notNull(),
    actualTime: instant(),
    status: text(['PENDING', 'SUCCESS', 'FAILED', 'CANCELLED']).notNull(),
    transactionId: text(),
    failReason: text(),
    retryCount: integer().notNull().default(0),
    /** Which anchor cycle this charge pays for (0 = the first period). */
    cycleIndex: integer().notNull().default(0),
    /** Claim lease (SPEC §7): a run owns the record until leaseUntil on its clock. */
    leaseOwner: text(),
    leaseUntil: instant(),
    /** Carried credit (from a plan change) this charge spends besides its amount: amount + creditApplied = the plan's price. */
    creditApplied: money().notNull().default(0),
    /** CHANGE: the credit granted for the unused part of the old plan's period (minor units). */
    creditGranted: money().notNull().default(0),
    /** The plan this charge pays for; null on records written before plan changes existed (the subscription's plan). */
    planId: text(),
    /** The coupon that discounted this charge, and by how much (minor units): amount + creditApplied + discountAmount = the plan's price. */
    couponCode: text(),
    discountAmount: money().notNull().default(0),
    createdAt: instant().notNull(),
  },
  {
    indexes: [
      // The renewal run's due query reads only this partial index, in its order, each page from
      // where the last stopped (sql/records.ts dueRecords): cost follows due work, on both engines.
      index('billing_records_due', ['scheduledTime', 'id'], "status = 'PENDING'"),
      index('billing_records_subscription', ['subscriptionId', 'createdAt']),
    ],
  },
);
