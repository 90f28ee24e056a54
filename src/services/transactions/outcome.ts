import type { Ctx } from '../../ctx.js';
import type { ChargeResult } from '../../channel/channel.js';
import { randomToken } from '../../domain/ids.js';
import { type DocumentFields, paymentCallbackBody } from '../../notify/payloads.js';
import type { NewEvent, RefundRow, TransactionRow, Tx } from '../../store/store.js';
import { cardCheckFailed, cardCheckSucceeded } from '../card-update/outcome.js';
import { queueCreditNoteEmail } from '../customer-email.js';
import { discountOf, factsOf, issueCreditNote, issueInvoice } from '../documents/issue.js';
import { firstChargeFailed, firstChargeSucceeded } from '../subscribe.js';
import { STATUS } from './view.js';

/**
 * Recording a payment's outcome. Every function runs INSIDE a unit of work (`tx`), moves the
 * transaction only from the status the caller saw (a conditional UPDATE, so each result is
 * recorded once however many callers race), and writes the PAYMENT callback of a final result
 * to the outbox in that same transaction (SPEC §8).
 */
export const PAGE_TTL_MS = 30 * 60 * 1000;

async function paymentEvent(
  ctx: Ctx,
  tx: Tx,
  txn: TransactionRow,
  now: number,
  documents: DocumentFields = {},
  knownCode?: string,
): Promise<void> {
  const code = knownCode ?? (txn.subscriptionId ? await tx.subscriptionCodeOf(txn.subscriptionId) : undefined);
  const sub = txn.subscriptionId && code ? { id: txn.subscriptionId, code } : undefined;
  await tx.enqueueEvent(paymentEventOf(ctx, txn, now, sub, documents));
}

/** The PAYMENT callback reporting `txn` as it now stands. */
export function paymentEventOf(
  ctx: Ctx,
  txn: TransactionRow,
  now: number,
  sub?: { id: string; code: string },
  documents: DocumentFields = {},
): NewEvent {
  return {
    merchantId: txn.merchantId,
    kind: 'PAYMENT',
    eventType: 'PAYMENT',
    transactionId: txn.id,
    subscriptionId: txn.subscriptionId,
    notifyUrl: txn.notifyUrl,
    body: paymentCallbackBody(txn, ctx.zone, sub, documents),
    now,
  };
}

/** What an approved charge changes on its transaction. */
export function succeededPatch(ref: string | null, now: number): TransactionPatch {
  return { status: STATUS.SUCCEEDED, channelRef: ref, failReason: null, txnTime: now, updatedAt: now };
}

/** What a charge that ended unpaid (declined, expired, cancelled) changes on its transaction. */
export function unpaidPatch(
  status: number,
  reason: string | null,
  now: number,
  extra: { channelRef?: string | null; checkoutDeclines?: number } = {},
): TransactionPatch {
  return {
    status,
    failReason: reason,
    txnTime: now,
    updatedAt: now,
    ...(extra.channelRef ? { channelRef: extra.channelRef } : {}),
    ...(extra.checkoutDeclines !== undefined ? { checkoutDeclines: extra.checkoutDeclines } : {}),
  };
}

/** What a charge that asks for 3DS changes: the transaction waits on the page, with a fresh 30-minute token. */
export function threeDsPatch(txn: TransactionRow, ref: string, now: number, keepToken = false): TransactionPatch {
  return {
    status: STATUS.REQUIRES_3DS,
    channelRef: ref,
    ...(keepToken && txn.pageToken ? {} : { pageToken: randomToken(24), pageExpiresAt: now + PAGE_TTL_MS }),
    updatedAt: now,
  };
}

type TransactionPatch = Partial<Omit<TransactionRow, 'id'>>;

/** A settled refund's credit note and its PAYMENT callback (the transaction's state after it), in its unit of work. */
export async function refundEvent(ctx: Ctx, tx: Tx, txnId: string, refund: RefundRow, now: number): Promise<void> {
  const txn = await tx.getTransaction(txnId);
  if (!txn) return;
  const creditNoteNumber = await issueCreditNote(tx, refund, txn, now);
  await queueCreditNoteEmail(ctx, tx, txn, creditNoteNumber, now);
  await paymentEvent(ctx, tx, txn, now, { creditNoteNumber });
}

export async function finishSucceeded(
  ctx: Ctx,
  tx: Tx,
  txn: TransactionRow,
  from: number,
  /** The channel's reference; null for a charge no channel made (zero-first-charge.ts). */
  ref: string | null,
  now: number,
): Promise<boolean> {
  const ok = await tx.updateTransactionIf(txn.id, from, succeededPatch(ref, now));
  if (!ok) return false;
  const row = (await tx.getTransaction(txn.id)) ?? txn;
  // A card check (a subscription's replacement card) moved no money: no PAYMENT callback.
  if (row.paymentType === 'CARD_CHECK') return cardCheckSucceeded(ctx, tx, row, now).then(() => true);
  const period = row.paymentType === 'SUBSCRIPTION' ? await firstChargeSucceeded(ctx, tx, row, now) : undefined;
  const code = row.subscriptionId ? await tx.subscriptionCodeOf(row.subscriptionId) : undefined;
  // Last in the unit of work: issuing holds the merchant's number until COMMIT, so it is held briefly.
  const record = period && row.billingRecordId ? await tx.getRecord(row.billingRecordId) : undefined;
  const plan = period && row.planId ? { planId: row.planId, ...period, reductions: discountOf(record) } : undefined;
  const invoice = await issueInvoice(ctx, tx, factsOf(row, code), plan, now);
  await paymentEvent(ctx, tx, row, now, invoice ?? {}, code);
  return true;
}

/**
 * FAILED (declined, 3DS failed), EXPIRED (page not completed) or CANCELLED (user cancelled). A
 * subscription's first charge ending so expires the subscription; `notifySubscription` adds the
 * SUBSCRIPTION_EXPIRED callback for one that was INCOMPLETE (waiting on 3DS).
 */
export async function finishUnpaid(
  ctx: Ctx,
  tx: Tx,
  txn: TransactionRow,
  from: number,
  status: number,
  reason: string | null,
  now: number,
  extra: { channelRef?: string | null; notifySubscription?: boolean; checkoutDeclines?: number } = {},
): Promise<boolean> {
  const ok = await tx.updateTransactionIf(txn.id, from, unpaidPatch(status, reason, now, extra));
  if (!ok) return false;
  const row = (await tx.getTransaction(txn.id)) ?? txn;
  if (row.paymentType === 'CARD_CHECK') return cardCheckFailed(ctx, tx, row).then(() => true);
  if (row.paymentType === 'SUBSCRIPTION')
    await firstChargeFailed(ctx, tx, row, reason ?? 'authentication_expired', now, extra.notifySubscription ?? false);
  await paymentEvent(ctx, tx, row, now);
  return true;
}

/** 3DS asked for: the transaction waits on the 3DS page, with a fresh 30-minute token. */
export function awaitThreeDs(
  tx: Tx,
  txn: TransactionRow,
  from: number,
  ref: string,
  now: number,
  keepToken = false,
): Promise<boolean> {
  return tx.updateTransactionIf(txn.id, from, threeDsPatch(txn, ref, now, keepToken));
}

/** Apply a customer-present charge result to a transaction that was in `from` while charging. */
export function applyChargeResult(
  ctx: Ctx,
  tx: Tx,
  txn: TransactionRow,
  from: number,
  result: ChargeResult,
  now: number,
): Promise<boolean> {
  switch (result.outcome) {
    case 'approved':
      return finishSucceeded(ctx, tx, txn, from, result.ref, now);
    case 'declined':
      return finishUnpaid(ctx, tx, txn, from, STATUS.FAILED, result.reason, now, { channelRef: result.ref });
    case 'requires_action':
      return awaitThreeDs(tx, txn, from, result.ref, now);
    case 'in_flight':
      return recordInFlight(ctx, tx, txn, from, result.ref, now);
    case 'refused':
      // The caller handles a refusal before recording anything (nothing ran, nothing to record).
      return Promise.resolve(false);
  }
}

/**
 * The channel may still move the money (a timeout, a 5xx, an intent still processing): the
 * transaction stays ACCEPTED (100000) with the channel's charge recorded, never FAILED on a
 * guess; the webhook or the renewal run's housekeeping settles it from the channel's own answer.
 * Without a charge ref nothing can have moved (the fault came before the charge existed): FAILED.
 */
export async function recordInFlight(
  ctx: Ctx,
  tx: Tx,
  txn: TransactionRow,
  from: number,
  ref: string | null,
  now: number,
): Promise<boolean> {
  if (ref === null) return finishUnpaid(ctx, tx, txn, from, STATUS.FAILED, 'processing_error', now);
  return tx.updateTransactionIf(txn.id, from, { status: STATUS.ACCEPTED, channelRef: ref, updatedAt: now });
}
