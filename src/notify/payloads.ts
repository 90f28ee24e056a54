import { formatAmount } from '../domain/money.js';
import { formatTime } from '../domain/time.js';
import type { BillingRecordRow, SubscriptionRow, TransactionRow } from '../store/store.js';

/**
 * Callback bodies of SPEC §8, built when the change happens and stored in the outbox. Every
 * value is a string (amounts formatted with the currency's decimals, counts in decimal) so any
 * language can verify a v1 signature; fields without value are left out.
 */

function compact(body: Record<string, string | number | null | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(body)) if (v !== null && v !== undefined && v !== '') out[k] = String(v);
  return out;
}

/** SPEC §17: a successful charge's callback names its invoice; a refund's, its credit note. */
export interface DocumentFields {
  invoiceNumber?: string;
  invoiceUrl?: string;
  creditNoteNumber?: string;
}

/** `paymentType` on the wire: renewals never send payment callbacks, so RENEWAL never appears. */
export function paymentCallbackBody(
  txn: TransactionRow,
  zone: string,
  subscription?: { id: string; code: string },
  documents: DocumentFields = {},
): Record<string, string> {
  return compact({
    notifyType: 'PAYMENT',
    transactionOrderId: txn.id,
    relationId: txn.relationId,
    merchantId: txn.merchantId,
    paymentType: txn.paymentType,
    status: String(txn.status),
    payAmount: formatAmount(txn.amount, txn.currency),
    currency: txn.currency,
    txnAmount: txn.txnAmount !== null && txn.txnCurrency ? formatAmount(txn.txnAmount, txn.txnCurrency) : undefined,
    txnCurrency: txn.txnCurrency,
    txnTime: txn.txnTime !== null ? formatTime(txn.txnTime, zone) : undefined,
    failReason: txn.failReason,
    refundedAmount: txn.refundedAmount > 0 ? formatAmount(txn.refundedAmount, txn.currency) : undefined,
    subscriptionId: subscription?.id,
    subscriptionCode: subscription?.code,
    invoiceNumber: documents.invoiceNumber,
    invoiceUrl: documents.invoiceUrl,
    creditNoteNumber: documents.creditNoteNumber,
  });
}

export type SubscriptionEventType =
  | 'RENEW_SUCCEEDED'
  | 'RENEW_FAILED'
  | 'SUBSCRIPTION_FAILED'
  | 'SUBSCRIPTION_EXPIRED'
  | 'PLAN_CHANGED';

/** What a PLAN_CHANGED callback adds: the plan left, when the change took effect, the credit granted and the balance carried. */
export interface PlanChangeFields {
  previousPlanId: string;
  when: 'NOW' | 'PERIOD_END';
  /** Credit granted for the unused part of the old plan's period (minor units). */
  credit: number;
}

export function subscriptionCallbackBody(args: {
  eventType: SubscriptionEventType;
  subscription: SubscriptionRow;
  record: BillingRecordRow;
  /** The PENDING record's scheduledTime after the change, if any. */
  nextBillingTime: number | null;
  eventTime: number;
  zone: string;
  change?: PlanChangeFields;
  /** RENEW_FAILED while retries are left: the hosted page where the subscriber enters a new card. */
  updateCardUrl?: string;
  /** A successful charge's invoice. */
  invoice?: DocumentFields;
}): Record<string, string> {
  const { subscription: s, record: r, zone } = args;
  return compact({
    notifyType: 'SUBSCRIPTION',
    eventType: args.eventType,
    merchantId: s.merchantId,
    subscriptionId: s.id,
    subscriptionCode: s.code,
    userId: s.userId,
    planId: s.planId,
    subscriptionStatus: s.status,
    recordId: r.id,
    billingType: r.billingType,
    amount: formatAmount(r.amount, r.currency),
    currency: r.currency,
    recordStatus: r.status,
    retryCount: String(r.retryCount),
    failReason: r.failReason,
    transactionOrderId: r.transactionId,
    couponCode: r.discountAmount > 0 ? r.couponCode : undefined,
    discountAmount: r.discountAmount > 0 ? formatAmount(r.discountAmount, r.currency) : undefined,
    nextBillingTime: args.nextBillingTime !== null ? formatTime(args.nextBillingTime, zone) : undefined,
    eventTime: formatTime(args.eventTime, zone),
    updateCardUrl: args.updateCardUrl,
    invoiceNumber: args.invoice?.invoiceNumber,
    invoiceUrl: args.invoice?.invoiceUrl,
    // A renewal recorded after a cancel or pause: the period it paid for, and a cancelled one's end.
    ...(s.status === 'CANCELLED' || s.status === 'PAUSED'
      ? {
          paidThrough: s.paidThrough !== null ? formatTime(s.paidThrough, zone) : undefined,
          endTime: s.status === 'CANCELLED' && s.endTime !== null ? formatTime(s.endTime, zone) : undefined,
        }
      : {}),
    ...(args.change
      ? {
          previousPlanId: args.change.previousPlanId,
          changeWhen: args.change.when,
          credit: formatAmount(args.change.credit, s.currency),
          creditBalance: formatAmount(s.credit, s.currency),
        }
      : {}),
  });
}
