import type { Ctx } from '../../app.js';
import type { ChargeResult } from '../../channel/channel.js';
import { randomToken } from '../../domain/ids.js';
import { paymentCallbackBody } from '../../notify/payloads.js';
import { enqueueEvent } from '../../store/outbox.js';
import { getTransaction, subscriptionCodeOf, updateTransactionIf, type TransactionRow } from '../../store/transactions.js';
import { firstChargeFailed, firstChargeSucceeded } from '../subscribe.js';
import { STATUS } from './view.js';

/**
 * Recording a payment's outcome. Every function runs INSIDE a database transaction, moves the
 * transaction only from the status the caller saw (a conditional UPDATE, so each result is
 * recorded once however many callers race), and writes the PAYMENT callback of a final result
 * to the outbox in that same transaction (SPEC §8).
 */
export const PAGE_TTL_MS = 30 * 60 * 1000;

function paymentEvent(ctx: Ctx, txn: TransactionRow, now: number): void {
  const code = txn.subscriptionId ? subscriptionCodeOf(ctx.sqlite, txn.subscriptionId) : undefined;
  const sub = txn.subscriptionId && code ? { id: txn.subscriptionId, code } : undefined;
  enqueueEvent(ctx.sqlite, {
    merchantId: txn.merchantId,
    kind: 'PAYMENT',
    eventType: 'PAYMENT',
    transactionId: txn.id,
    subscriptionId: txn.subscriptionId,
    notifyUrl: txn.notifyUrl,
    body: paymentCallbackBody(txn, ctx.zone, sub),
    now,
  });
}

/** The PAYMENT callback of a refund: the transaction's state after it. */
export function refundEvent(ctx: Ctx, txnId: string, now: number): void {
  const txn = getTransaction(ctx.sqlite, txnId);
  if (txn) paymentEvent(ctx, txn, now);
}

export function finishSucceeded(ctx: Ctx, txn: TransactionRow, from: number, ref: string, now: number): boolean {
  const ok = updateTransactionIf(ctx.sqlite, txn.id, from, {
    status: STATUS.SUCCEEDED,
    channelRef: ref,
    failReason: null,
    txnTime: now,
    updatedAt: now,
  });
  if (!ok) return false;
  const row = getTransaction(ctx.sqlite, txn.id) ?? txn;
  if (row.paymentType === 'SUBSCRIPTION') firstChargeSucceeded(ctx, row, now);
  paymentEvent(ctx, row, now);
  return true;
}

/**
 * FAILED (declined, 3DS failed), EXPIRED (page not completed) or CANCELLED (user cancelled). A
 * subscription's first charge ending so expires the subscription; `notifySubscription` adds the
 * SUBSCRIPTION_EXPIRED callback for one that was INCOMPLETE (waiting on 3DS).
 */
export function finishUnpaid(
  ctx: Ctx,
  txn: TransactionRow,
  from: number,
  status: number,
  reason: string | null,
  now: number,
  extra: { channelRef?: string | null; notifySubscription?: boolean; checkoutDeclines?: number } = {},
): boolean {
  const ok = updateTransactionIf(ctx.sqlite, txn.id, from, {
    status,
    failReason: reason,
    txnTime: now,
    updatedAt: now,
    ...(extra.channelRef ? { channelRef: extra.channelRef } : {}),
    ...(extra.checkoutDeclines !== undefined ? { checkoutDeclines: extra.checkoutDeclines } : {}),
  });
  if (!ok) return false;
  const row = getTransaction(ctx.sqlite, txn.id) ?? txn;
  if (row.paymentType === 'SUBSCRIPTION') firstChargeFailed(ctx, row, reason ?? 'authentication_expired', now, extra.notifySubscription ?? false);
  paymentEvent(ctx, row, now);
  return true;
}

/** 3DS asked for: the transaction waits on the 3DS page, with a fresh 30-minute token. */
export function awaitThreeDs(ctx: Ctx, txn: TransactionRow, from: number, ref: string, now: number, keepToken = false): boolean {
  return updateTransactionIf(ctx.sqlite, txn.id, from, {
    status: STATUS.REQUIRES_3DS,
    channelRef: ref,
    ...(keepToken && txn.pageToken ? {} : { pageToken: randomToken(24), pageExpiresAt: now + PAGE_TTL_MS }),
    updatedAt: now,
  });
}

/** Apply a customer-present charge result to a transaction that was in `from` while charging. */
export function applyChargeResult(ctx: Ctx, txn: TransactionRow, from: number, result: ChargeResult, now: number): boolean {
  switch (result.outcome) {
    case 'approved':
      return finishSucceeded(ctx, txn, from, result.ref, now);
    case 'declined':
      return finishUnpaid(ctx, txn, from, STATUS.FAILED, result.reason, now, { channelRef: result.ref });
    case 'requires_action':
      return awaitThreeDs(ctx, txn, from, result.ref, now);
  }
}
