import { z } from 'zod';
import type { Ctx } from '../ctx.js';
import { channelOf } from './channel-of.js';
import type { RefundResult } from '../channel/channel.js';
import { notAllowed, PaygateError, RESULT_CODES } from '../domain/errors.js';
import { amountString, optionalString, parseInput } from '../domain/fields.js';
import { newId } from '../domain/ids.js';
import { checkAmountForm, formatAmount, parseAmount } from '../domain/money.js';
import { rowOf, type MerchantRow, type RefundRow, type TransactionRow, type Tx } from '../store/store.js';
import { requestFingerprint, signatureKey } from '../vault/fingerprint.js';
import { findTransaction } from './transactions/query.js';
import { refundEvent } from './transactions/outcome.js';
import { STATUS, STATUS_NAMES } from './transactions/view.js';
import { withArticle } from '../domain/words.js';

/** SPEC §5 refund response `data` (all strings). */
export interface RefundView {
  transactionOrderId: string;
  relationId?: string;
  refundTransactionId: string;
  status: string;
  /** Only while the processor has not settled the refund (Stripe pending). */
  refundStatus?: 'PENDING';
  payAmount: string;
  currency: string;
  merchantId: string;
}

export const REFUND_REQUEST = z.object({
  transactionOrderId: optionalString(200),
  relationId: optionalString(200),
  refundAmount: amountString('is required and must be a decimal string such as "5.00"'),
  requestId: optionalString(100),
});

/** The requestId when sent, else the signature; neither (the operator's CLI): every call refunds. */
function refundKey(
  ctx: Ctx,
  requestId: string | undefined,
  signature: string | undefined,
): { scope: 'refund' | 'refund-signature'; requestId: string } | undefined {
  if (requestId) return { scope: 'refund', requestId };
  if (signature) return { scope: 'refund-signature', requestId: signatureKey(ctx.vault, signature) };
  return undefined;
}

const REFUNDABLE: readonly number[] = [STATUS.SUCCEEDED, STATUS.PARTIALLY_REFUNDED];

/** Why a transaction in `status` takes no refund, in the words its operator would use. */
function notRefundable(status: number): string {
  if (status === STATUS.REFUNDED) return 'transaction already fully refunded';
  const name = STATUS_NAMES[status] ?? String(status);
  return `cannot refund ${withArticle(name)} transaction (${status}): only SUCCEEDED or PARTIALLY_REFUNDED ones`;
}

function view(txn: TransactionRow, refund: RefundRow): RefundView {
  return {
    transactionOrderId: txn.id,
    ...(txn.relationId ? { relationId: txn.relationId } : {}),
    refundTransactionId: refund.id,
    status: String(txn.status),
    ...(refund.status === 'PENDING' ? { refundStatus: 'PENDING' as const } : {}),
    payAmount: formatAmount(refund.amount, refund.currency),
    currency: refund.currency,
    merchantId: txn.merchantId,
  };
}

interface Reserved {
  txn: TransactionRow;
  refund: RefundRow;
  /** This call must drive the channel refund (a new one, or a replay of one left PENDING). */
  drive: boolean;
  /** Made by this call: no channel call for it has ever been sent. */
  fresh?: boolean;
}

/** How the caller authenticated the request: the API passes the signature, the CLI nothing. */
export interface RefundOptions {
  /** The request's signature (v1 `sign`, v2 header hex): the idempotency key when no requestId is sent. */
  signature?: string;
}

/**
 * Refund (SPEC §5). The amount is RESERVED (transactions.refund_reserved) in the same immediate
 * transaction that checks paid − refunded − reserved ≥ amount, before the channel is called, so
 * concurrent refunds can never exceed the paid amount; a refund the channel fails releases it.
 * A channel that throws leaves the refund PENDING with its reservation held (never over-refunds);
 * a repeat with the same requestId re-drives it through the channel's idempotency key, and so
 * does the renewal run's housekeeping (resumeStaleRefunds) after STALE_REFUND_MS.
 *
 * A signed request without requestId is idempotent on its signature (SPEC §4 "Replays"): a
 * captured refund sent again answers the first refund and moves no money.
 */
export async function refundTransaction(
  ctx: Ctx,
  merchant: MerchantRow,
  input: unknown,
  opts: RefundOptions = {},
): Promise<RefundView> {
  const data = parseInput(REFUND_REQUEST, input);
  const fingerprint = requestFingerprint(ctx.vault, input as Record<string, unknown>);
  const idempotency = refundKey(ctx, data.requestId, opts.signature);
  checkAmountForm(data.refundAmount, { field: 'refundAmount', positive: true });
  const found = await findTransaction(ctx, merchant.id, data);
  // Validate the amount against the transaction's currency before anything is written.
  const amount = parseAmount(data.refundAmount, found.currency, { field: 'refundAmount', positive: true });
  const now = ctx.clock.now();

  const step = await ctx.store.transaction(async (tx): Promise<Reserved> => {
    if (idempotency) {
      const seen = await tx.getIdempotency(merchant.id, idempotency.scope, idempotency.requestId);
      if (seen) {
        // One signature signs one request: only a requestId can come back with other fields.
        if (idempotency.scope === 'refund' && !fingerprint.matches(seen.requestHash))
          throw new PaygateError(
            RESULT_CODES.REQUEST_CONFLICT,
            'requestId already used with a different request',
            'requestId',
          );
        const refund = await tx.getRefund(seen.resourceId);
        const txn = refund ? await tx.getTransaction(refund.transactionId) : undefined;
        if (!refund || !txn) throw new Error(`idempotency key points at a missing refund ${seen.resourceId}`);
        return { txn, refund, drive: refund.status === 'PENDING' };
      }
    }
    const txn = (await tx.lockTransaction(found.id)) ?? found;
    if (!REFUNDABLE.includes(txn.status)) throw notAllowed(notRefundable(txn.status));
    if (!(await tx.reserveRefund(txn.id, amount, now))) {
      const left = txn.amount - txn.refundedAmount - txn.refundReserved;
      throw new PaygateError(
        RESULT_CODES.REFUND_EXCEEDS,
        `refund amount exceeds what is still refundable (${formatAmount(Math.max(left, 0), txn.currency)} ${txn.currency})`,
        'refundAmount',
      );
    }
    const refund: RefundRow = rowOf('refunds', {
      id: newId('rfd', now),
      merchantId: merchant.id,
      transactionId: txn.id,
      amount,
      currency: txn.currency,
      status: 'PENDING',
      createdAt: now,
      updatedAt: now,
    });
    await tx.insertRefund(refund);
    if (idempotency)
      await tx.insertIdempotency({
        merchantId: merchant.id,
        ...idempotency,
        requestHash: fingerprint.stored,
        resourceId: refund.id,
        now,
      });
    return { txn, refund, drive: true, fresh: true };
  });

  if (!step.drive) return settledView(ctx, step);
  return settledView(ctx, { ...(await driveRefund(ctx, step.txn, step.refund, step.fresh === true)), drive: false });
}

/**
 * Call the channel for a PENDING refund (its id is the idempotency key, so a replay never
 * refunds twice) and settle it with its reservation, once, in one write transaction.
 */
async function driveRefund(
  ctx: Ctx,
  txn: TransactionRow,
  refund: RefundRow,
  fresh = false,
): Promise<{ txn: TransactionRow; refund: RefundRow }> {
  if (!txn.channelRef) throw new Error(`transaction ${txn.id} has no channel charge to refund`);
  const channel = await channelOf(ctx, txn.merchantId, txn.channel);
  // A refund the channel already took (answered pending) is read back, never asked for again; one
  // sent before whose answer was lost is looked for at the channel first (triedBefore): its
  // idempotency key alone does not protect it once the processor has forgotten the key.
  const result: RefundResult =
    refund.channelRef && channel.retrieveRefund
      ? await channel.retrieveRefund(refund.channelRef)
      : await channel.refund({
          idempotencyKey: refund.id,
          chargeRef: txn.channelRef,
          amount: refund.amount,
          currency: refund.currency,
          ...(fresh ? {} : { triedBefore: true }),
        });
  if (result.outcome === 'refused' && fresh) await discardRefused(ctx, txn, refund, result.message);
  return ctx.store.transaction(async (tx) => {
    await recordRefundResult(ctx, tx, txn.id, refund, result);
    return { txn: (await tx.getTransaction(txn.id)) ?? txn, refund: (await tx.getRefund(refund.id)) ?? refund };
  });
}

/**
 * The channel did not run the refund at all (a revoked key, a missing permission), and no earlier
 * call for it was ever sent: nothing was refunded. The refund and its requestId go and its
 * reservation is released, so the same request works once the key is fixed; the caller gets 9999.
 */
async function discardRefused(ctx: Ctx, txn: TransactionRow, refund: RefundRow, message: string): Promise<never> {
  await ctx.store.transaction(async (tx) => {
    if (await tx.discardRefusedRefund(refund.id))
      await tx.settleReservation(txn.id, refund.amount, false, ctx.clock.now());
  });
  throw new PaygateError(
    RESULT_CODES.INTERNAL,
    `the payment channel refused the refund, nothing was refunded (check the merchant's channel key): ${message}`,
  );
}

/**
 * Record what the channel says of a PENDING refund, inside a unit of work: settled (SUCCEEDED, with
 * the PAYMENT callback) or failed (its reservation released), once however many callers race
 * (the API answer, a webhook, the renewal run); pending leaves it as it is, noting the channel's id.
 */
export async function recordRefundResult(
  ctx: Ctx,
  tx: Tx,
  txnId: string,
  refund: RefundRow,
  result: RefundResult,
): Promise<void> {
  const at = ctx.clock.now();
  if (result.outcome === 'pending') {
    if (result.ref) await tx.noteRefundRef(refund.id, result.ref);
    return;
  }
  // A refusal of a call repeated after an earlier one that may have run (a timeout) says nothing
  // of that one: the refund stays PENDING, its amount reserved, until the channel answers again.
  if (result.outcome === 'refused') return;
  const ok = result.outcome === 'refunded';
  const failReason = result.outcome === 'failed' ? result.reason : null;
  // Settling is conditional on PENDING: a concurrent replay settles the reservation once.
  if (
    await tx.settleRefund(refund.id, {
      status: ok ? 'SUCCEEDED' : 'FAILED',
      channelRef: ok ? result.ref : refund.channelRef,
      failReason,
      now: at,
    })
  ) {
    await tx.settleReservation(txnId, refund.amount, ok, at);
    if (ok) await refundEvent(ctx, tx, txnId, refund, at);
  }
}

/** A refund PENDING for longer than this was left by a channel call that threw (calls time out well before). */
export const STALE_REFUND_MS = 5 * 60_000;

export interface ResumeSummary {
  /** Settled now: SUCCEEDED or FAILED (reservation released). */
  settled: number;
  /** The channel threw again: still PENDING, tried on the next run. */
  stillPending: number;
}

/**
 * Re-drive refunds a thrown channel call left PENDING (their amount stays reserved meanwhile, so
 * nothing can over-refund). Without this, a refund made without requestId would hold its
 * reservation for ever. The renewal run calls it (so `paygate renew` and serve's timer do).
 */
export async function resumeStaleRefunds(ctx: Ctx, opts: { limit?: number } = {}): Promise<ResumeSummary> {
  const summary: ResumeSummary = { settled: 0, stillPending: 0 };
  const ids = await ctx.store.stalePendingRefundIds(ctx.clock.now() - STALE_REFUND_MS, opts.limit ?? 100);
  for (const id of ids) {
    const refund = await ctx.store.getRefund(id);
    const txn = refund ? await ctx.store.getTransaction(refund.transactionId) : undefined;
    if (!refund || !txn || refund.status !== 'PENDING') continue;
    try {
      const after = await driveRefund(ctx, txn, refund);
      if (after.refund.status === 'PENDING') summary.stillPending++;
      else summary.settled++;
    } catch {
      summary.stillPending++;
    }
  }
  return summary;
}

async function settledView(ctx: Ctx, s: Reserved): Promise<RefundView> {
  if (s.refund.status === 'FAILED') {
    throw new PaygateError(
      RESULT_CODES.NOT_ALLOWED,
      `refund declined by the channel: ${s.refund.failReason ?? 'refund_failed'}`,
    );
  }
  const txn = (await ctx.store.getTransaction(s.txn.id)) ?? s.txn;
  return view(txn, s.refund);
}
