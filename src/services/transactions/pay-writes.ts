import type { Ctx } from '../../ctx.js';
import type { ChargeRequest } from '../../channel/channel.js';
import { PaygateError, RESULT_CODES } from '../../domain/errors.js';
import type { ChargeOutcome, NewEvent, NewIdempotency, TransactionRow } from '../../store/store.js';
import { factsOf, prepareInvoice } from '../documents/issue.js';
import { paymentEventOf, succeededPatch, threeDsPatch, unpaidPatch } from './outcome.js';
import { STATUS } from './view.js';

/**
 * A PAY's writes for the common case: on the sandbox one write of the store (SQLite: one unit of
 * work; PostgreSQL: one statement), elsewhere the acceptance as one write before the charge.
 * Whatever else happens falls back to the general units of work in create.ts, which answer it as
 * before. The guarantees are the same ones: no charge without its durable acceptance (on SQLite's
 * sandbox they commit together), one transaction per requestId, the callback written with the outcome.
 */

/**
 * The key and the ACCEPTED row together. False: the requestId was already used (a repeat, or a
 * concurrent duplicate that waited for the first to commit), nothing written — the general unit
 * of work answers it (the first result, or 1011 for a different request).
 */
export async function acceptPay(ctx: Ctx, row: TransactionRow, key: NewIdempotency): Promise<boolean> {
  const r = await ctx.store.acceptTransaction({ row, key });
  if (r === 'relation') throw relationTaken();
  return r === 'accepted';
}

/** 1005: the merchant already used this relationId (every path of a new transaction answers it so). */
export function relationTaken(): PaygateError {
  return new PaygateError(RESULT_CODES.DUPLICATE_RELATION, 'relationId already used by this merchant', 'relationId');
}

/**
 * A new PAY on the sandbox in one write of the store (Store.payOnSandbox): the acceptance, the
 * ledger entry, the outcome, a paid charge's invoice and receipt, and the PAYMENT callback.
 * Undefined when this does not apply (another channel): the caller takes the two-write path.
 * 'seen': the requestId was taken and nothing was written — the general unit of work answers it.
 */
export async function payOnSandbox(
  ctx: Ctx,
  row: TransactionRow,
  key: NewIdempotency,
  req: ChargeRequest,
): Promise<TransactionRow | 'seen' | undefined> {
  const outcome = sandboxOutcome(ctx, row, req);
  if (!outcome) return undefined;
  const paid = await ctx.store.payOnSandbox({ row, key }, outcome);
  if (paid.accepted !== 'accepted') {
    if (paid.accepted === 'relation') throw relationTaken();
    return 'seen';
  }
  // The ledger's key is this new transaction's id, so it cannot be taken; were it, the row stands ACCEPTED.
  return paid.recorded.row ?? (await ctx.store.getTransaction(row.id)) ?? row;
}

/**
 * A PAY on the sandbox: its ledger entry, the outcome, a paid charge's invoice and receipt, and the
 * PAYMENT callback in one write.
 * Undefined when this does not apply (another channel, a subscription's first charge with its
 * subscription to settle) or when the ledger already holds the key (a re-drive): the ledger's
 * first entry then decides, through the channel and the general path.
 */
export async function chargeOnSandbox(
  ctx: Ctx,
  row: TransactionRow,
  req: ChargeRequest,
): Promise<TransactionRow | undefined> {
  const outcome = sandboxOutcome(ctx, row, req);
  if (!outcome) return undefined;
  const written = await ctx.store.recordSandboxOutcome(outcome);
  if (!written.entered) return undefined;
  // Not moved: another caller recorded this transaction meanwhile; answer how it stands.
  return written.row ?? (await ctx.store.getTransaction(row.id)) ?? row;
}

/**
 * What charging `row` on the sandbox writes. The sandbox decides from the card alone, so the whole
 * outcome is known before anything is written (the invoice's number is taken by the write itself).
 */
function sandboxOutcome(ctx: Ctx, row: TransactionRow, req: ChargeRequest): ChargeOutcome | undefined {
  if (row.paymentType !== 'PAY' || row.channel === 'stripe' || !ctx.channel.prepareCharge) return undefined;
  const { result, entry } = ctx.channel.prepareCharge(req);
  const now = ctx.clock.now();
  let patch: Partial<Omit<TransactionRow, 'id'>>;
  switch (result.outcome) {
    case 'approved':
      patch = succeededPatch(result.ref, now);
      break;
    case 'declined':
      patch = unpaidPatch(STATUS.FAILED, result.reason, now, { channelRef: result.ref });
      break;
    case 'requires_action':
      patch = threeDsPatch(row, result.ref, now);
      break;
    default:
      return undefined;
  }
  const after = { ...row, ...patch };
  // As finishSucceeded: a paid charge's invoice and receipt, their number in the callback.
  const issued = result.outcome === 'approved' ? prepareInvoice(ctx, factsOf(after), now) : undefined;
  // 3DS: no callback until the challenge ends (outcome.ts awaitThreeDs).
  const event: NewEvent | undefined =
    result.outcome === 'requires_action' ? undefined : paymentEventOf(ctx, after, now, undefined, issued?.fields);
  return {
    entry,
    transactionId: row.id,
    from: STATUS.ACCEPTED,
    patch,
    ...(event ? { event } : {}),
    ...(issued ? { invoice: issued.invoice } : {}),
  };
}
