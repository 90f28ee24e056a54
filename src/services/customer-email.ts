import type { Ctx } from '../ctx.js';
import type {
  CardExpiringEmail,
  ReceiptStopped,
  RenewalFailedEmail,
  SubscriptionEndedEmail,
} from '../notify/email/message.js';
import { emailOfAddress } from '../domain/email-address.js';
import type { NewCustomerEmail, SubscriptionRow, TransactionRow, Tx } from '../store/store.js';

/**
 * Writing customer emails (SPEC §17), INSIDE the unit of work of what they report, so an email
 * exists exactly when its event committed. What each stores is the message's facts without the
 * sender and recipient (read at delivery, so a corrected emailFrom or merchant name applies to
 * emails still waiting).
 */

type Facts<E> = Omit<E, 'kind' | 'to' | 'sender'>;

/**
 * Write the email unless there is nothing to send it with or to: no PAYGATE_SMTP_URL, or no
 * address. The merchant's emailFrom and its customer-emails switch are checked by the write.
 */
async function queue(ctx: Ctx, tx: Tx, e: Omit<NewCustomerEmail, 'recipient'> & { recipient: string | null }) {
  if (ctx.config.smtpUrl === undefined || !e.recipient) return undefined;
  return tx.enqueueEmail({ ...e, recipient: e.recipient });
}

/** Whether a subscription's event would be emailed at all: spares the reads that build it. */
export function emailsSubscriber(ctx: Ctx, s: SubscriptionRow): boolean {
  return ctx.config.smtpUrl !== undefined && s.email !== null;
}

export function queueRenewalFailed(
  ctx: Ctx,
  tx: Tx,
  s: SubscriptionRow,
  recordId: string,
  facts: Facts<RenewalFailedEmail>,
  now: number,
): Promise<string | undefined> {
  return queue(ctx, tx, {
    merchantId: s.merchantId,
    kind: 'renewal-failed',
    recipient: s.email,
    subscriptionId: s.id,
    recordId,
    dedupeKey: `renewal-failed:${recordId}`,
    details: facts,
    now,
  });
}

/** One notice per renewal: the dedupe key is the renewal's record. */
export function queueCardExpiring(
  ctx: Ctx,
  tx: Tx,
  a: { merchantId: string; subscriptionId: string; recordId: string; email: string },
  facts: Facts<CardExpiringEmail>,
  now: number,
): Promise<string | undefined> {
  return queue(ctx, tx, {
    merchantId: a.merchantId,
    kind: 'card-expiring',
    recipient: a.email,
    subscriptionId: a.subscriptionId,
    recordId: a.recordId,
    dedupeKey: `card-expiring:${a.recordId}`,
    details: facts,
    now,
  });
}

/** A subscription ends once: the dedupe key is the subscription. */
export async function queueSubscriptionEnded(
  ctx: Ctx,
  tx: Tx,
  s: SubscriptionRow,
  facts: Omit<Facts<SubscriptionEndedEmail>, 'planName' | 'subscriptionCode'>,
  now: number,
): Promise<string | undefined> {
  if (!emailsSubscriber(ctx, s)) return undefined;
  const plan = await tx.getPlanInfo(s.planId);
  return queue(ctx, tx, {
    merchantId: s.merchantId,
    kind: 'subscription-ended',
    recipient: s.email,
    subscriptionId: s.id,
    dedupeKey: `subscription-ended:${s.id}`,
    details: { ...facts, planName: plan?.name ?? s.planId, subscriptionCode: s.code },
    now,
  });
}

/** Where a charge's email goes: its billingAddress.email, else its subscription's address. */
async function chargeRecipient(
  tx: Tx,
  billingAddress: string | null,
  subscriptionId: string | null,
): Promise<string | undefined> {
  const own = emailOfAddress(billingAddress);
  if (own !== undefined || subscriptionId === null) return own;
  return (await tx.getSubscriptionById(subscriptionId))?.email ?? undefined;
}

type ReceiptFacts = { merchantId: string; transactionId: string; subscriptionId: string | null };

/**
 * The receipt of a successful charge, in the unit of work that issues its invoice (so never for
 * a charge that did not succeed). The invoice is read and its PDF rendered at delivery.
 */
export async function queueReceipt(
  ctx: Ctx,
  tx: Tx,
  c: ReceiptFacts & { billingAddress: string | null },
  invoiceNumber: string,
  now: number,
  stopped?: ReceiptStopped,
): Promise<string | undefined> {
  if (ctx.config.smtpUrl === undefined) return undefined;
  const e = receiptEmail(
    ctx,
    c,
    await chargeRecipient(tx, c.billingAddress, c.subscriptionId),
    invoiceNumber,
    now,
    stopped,
  );
  return e ? tx.enqueueEmail(e) : undefined;
}

/** The receipt's row, or undefined when there is nothing to send it with or to (see queue). */
export function receiptEmail(
  ctx: Ctx,
  c: ReceiptFacts,
  recipient: string | undefined,
  invoiceNumber: string,
  now: number,
  stopped?: ReceiptStopped,
): NewCustomerEmail | undefined {
  if (ctx.config.smtpUrl === undefined || !recipient) return undefined;
  return {
    merchantId: c.merchantId,
    kind: 'receipt',
    recipient,
    subscriptionId: c.subscriptionId,
    transactionId: c.transactionId,
    dedupeKey: `receipt:${c.merchantId}:${invoiceNumber}`,
    details: { invoiceNumber, ...(stopped ? { stopped } : {}) },
    now,
  };
}

/** The credit note of a settled refund, in the unit of work that issues it. */
export async function queueCreditNoteEmail(
  ctx: Ctx,
  tx: Tx,
  txn: TransactionRow,
  creditNoteNumber: string,
  now: number,
): Promise<string | undefined> {
  if (ctx.config.smtpUrl === undefined) return undefined;
  return queue(ctx, tx, {
    merchantId: txn.merchantId,
    kind: 'credit-note',
    recipient: (await chargeRecipient(tx, txn.billingAddress, txn.subscriptionId)) ?? null,
    subscriptionId: txn.subscriptionId,
    transactionId: txn.id,
    dedupeKey: `credit-note:${txn.merchantId}:${creditNoteNumber}`,
    details: { creditNoteNumber },
    now,
  });
}
