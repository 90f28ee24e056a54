import type { CreditNote, Invoice, PaymentMethod } from '../../domain/documents.js';

/**
 * The five customer emails of SPEC §17 as data: what the outbox keeps and compose.ts turns into
 * a message. A card appears only as a PaymentMethod (brand and last four digits): there is no
 * field through which more of a card number could reach an email.
 */

/** Who the email is from: the merchant's name as sender name, its `emailFrom` as address. */
export interface EmailSender {
  merchantName: string;
  emailFrom: string;
  /** Where the customer's replies go (the merchant's supportEmail), when set. */
  supportEmail?: string;
}

interface Common {
  to: string;
  sender: EmailSender;
}

export interface ReceiptEmail extends Common {
  kind: 'receipt';
  invoice: Invoice;
  invoiceUrl: string;
  /** A renewal that was under way when its subscription was cancelled or paused, and completed. */
  stopped?: ReceiptStopped;
}

/** The subscription a receipt's renewal paid for had been cancelled or paused; `until`: the end of the period it paid for. */
export interface ReceiptStopped {
  status: 'CANCELLED' | 'PAUSED';
  until: number;
}

export interface CreditNoteEmail extends Common {
  kind: 'credit-note';
  creditNote: CreditNote;
  /** The credit note's own page. */
  creditNoteUrl: string;
  payment?: PaymentMethod;
  /** The page of the invoice it credits. */
  invoiceUrl?: string;
}

export interface RenewalFailedEmail extends Common {
  kind: 'renewal-failed';
  planName: string;
  subscriptionCode: string;
  amount: number;
  currency: string;
  payment?: PaymentMethod;
  /** The decline's failReason (SPEC §5), worded for the customer by compose.ts. */
  failReason?: string;
  updateCardUrl: string;
  /** When the next attempt is due, if one is. */
  nextAttemptAt?: number;
}

export interface CardExpiringEmail extends Common {
  kind: 'card-expiring';
  planName: string;
  subscriptionCode: string;
  amount: number;
  currency: string;
  payment: PaymentMethod;
  expMonth: number;
  expYear: number;
  renewalAt: number;
  updateCardUrl: string;
}

export interface SubscriptionEndedEmail extends Common {
  kind: 'subscription-ended';
  planName: string;
  subscriptionCode: string;
  /** CANCELLED (by the merchant or on request) or FAILED (renewal failed after its retries). */
  status: 'CANCELLED' | 'FAILED';
  endTime: number;
  /** CANCELLED while a renewal charge was under way: it may still complete (and then moves endTime). */
  chargeUnderWay?: boolean;
}

export type CustomerEmail =
  | ReceiptEmail
  | CreditNoteEmail
  | RenewalFailedEmail
  | CardExpiringEmail
  | SubscriptionEndedEmail;

export type CustomerEmailKind = CustomerEmail['kind'];

export const CUSTOMER_EMAIL_KINDS: readonly CustomerEmailKind[] = [
  'receipt',
  'credit-note',
  'renewal-failed',
  'card-expiring',
  'subscription-ended',
];
