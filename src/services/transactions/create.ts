import type { Ctx } from '../../ctx.js';
import type { ChargeRequest, ChargeResult } from '../../channel/channel.js';
import { PaygateError, RESULT_CODES } from '../../domain/errors.js';
import { newId, randomToken } from '../../domain/ids.js';
import { assertNotifyUrlAllowed } from '../../notify/guard.js';
import { rowOf, type MerchantRow, type TransactionRow } from '../../store/store.js';
import { requestFingerprint } from '../../vault/fingerprint.js';
import { channelCard, type ValidCard } from '../../vault/card.js';
import { requirePlan } from '../plans.js';
import { emailOfAddress } from '../../domain/email-address.js';
import { createFirstCharge } from '../subscribe.js';
import { parseTransactionInput, type PaymentType, type TransactionInput } from './input.js';
import { applyChargeResult, finishUnpaid, PAGE_TTL_MS } from './outcome.js';
import { couponCoversFirstCharge, recordCoveredFirstCharge } from './zero-first-charge.js';
import { acceptPay, chargeOnSandbox, payOnSandbox, relationTaken } from './pay-writes.js';
import { STATUS, transactionView, type TransactionView } from './view.js';
import { subscriberCustomer } from '../documents/issue.js';

/**
 * A charge taking longer than this is presumed abandoned (process killed mid-charge): a repeat of
 * the same request may then re-drive it through the channel's idempotency key.
 */
export const CHARGE_LEASE_MS = 60_000;

export interface CreateTransactionOptions {
  /** The caller's address when the request has no clientIp. */
  clientIp?: string;
  /** `/subscription/create` makes paymentType optional. */
  defaultPaymentType?: 'SUBSCRIPTION';
}

interface Step {
  row: TransactionRow;
  /** This call owns the channel charge (a new transaction, or a re-drive of an abandoned one). */
  charge: boolean;
}

/**
 * PAY, CHECKOUT and SUBSCRIPTION (SPEC §5). Money-safety shape:
 *  1. validate everything (nothing written on a bad field);
 *  2. ONE write transaction: requestId idempotency, relationId uniqueness, plan place, and the
 *     transaction row in ACCEPTED — so concurrent duplicates find the row and charge nothing;
 *  3. the channel charge, outside any transaction, keyed by the transaction id;
 *  4. a second write transaction records the outcome and the PAYMENT callback.
 * A channel that throws leaves the row ACCEPTED; repeating the request re-drives the charge with
 * the same key, so the customer is never charged twice.
 * A PAY takes the same steps in fewer writes (pay-writes.ts): a new requestId on the sandbox as
 * one write of the store (steps 2–4: the sandbox's charge is a row of the same database, so it
 * commits with its acceptance or not at all), elsewhere step 2 as one write; anything else goes
 * the long way.
 */
export async function createTransaction(
  ctx: Ctx,
  merchant: MerchantRow,
  input: unknown,
  opts: CreateTransactionOptions = {},
): Promise<TransactionView> {
  // The API refuses a disabled merchant at authentication; this holds for every other caller (the CLI).
  if (merchant.status !== 'ACTIVE') {
    throw new PaygateError(
      RESULT_CODES.UNKNOWN_MERCHANT,
      `merchant ${merchant.id} is disabled; enable it with \`paygate merchant update ${merchant.id} --enable\``,
    );
  }
  const now = ctx.clock.now();
  const data = parseTransactionInput(input, now, ctx.zone, opts.defaultPaymentType);
  assertNotifyUrlAllowed(data.notifyUrl, ctx.config.callbackPrivate);
  // The request itself (card included) is never stored, nor a plain hash of it (brute-forceable for
  // the card): only this fingerprint keyed under the vault key.
  const fingerprint = requestFingerprint(ctx.vault, input as Record<string, unknown>);
  const plan =
    data.paymentType === 'SUBSCRIPTION' && data.planId ? await requirePlan(ctx, merchant.id, data.planId) : undefined;
  const pay =
    data.paymentType === 'PAY'
      ? newRow(merchant, data, {
          id: newId('txn', now),
          amount: data.amount,
          currency: data.currency,
          now,
          clientIp: data.clientIp ?? opts.clientIp,
          sub: undefined,
        })
      : undefined;
  const key = (resourceId: string) => ({
    merchantId: merchant.id,
    scope: 'transaction' as const,
    requestId: data.requestId,
    requestHash: fingerprint.stored,
    resourceId,
    now,
  });
  const sandboxPaid =
    pay && data.card ? await payOnSandbox(ctx, pay, key(pay.id), chargeRequestOf(pay, data.card)) : undefined;
  if (sandboxPaid !== undefined && sandboxPaid !== 'seen') return transactionView(ctx, sandboxPaid);
  const accepted = pay !== undefined && sandboxPaid === undefined && (await acceptPay(ctx, pay, key(pay.id)));
  const step = accepted
    ? { row: pay, charge: true }
    : await ctx.store.transaction(async (tx): Promise<Step> => {
        // The key is also unique in the store: a concurrent duplicate that slips past this read fails
        // its insert, and the unit of work is redone (PostgreSQL) or was serialised (SQLite), then finds it.
        const seen = await tx.getIdempotency(merchant.id, 'transaction', data.requestId);
        if (seen) {
          if (!fingerprint.matches(seen.requestHash)) {
            throw new PaygateError(
              RESULT_CODES.REQUEST_CONFLICT,
              'requestId already used with a different request',
              'requestId',
            );
          }
          const row = await tx.lockTransaction(seen.resourceId);
          if (!row) throw new Error(`idempotency key points at a missing transaction ${seen.resourceId}`);
          const charge =
            row.status === STATUS.ACCEPTED &&
            data.card !== undefined &&
            (await tx.claimCharge(row.id, now, CHARGE_LEASE_MS));
          return { row, charge };
        }
        if (await tx.getTransactionByRelation(merchant.id, data.relationId)) {
          throw relationTaken();
        }
        const id = newId('txn', now);
        let amount = data.amount;
        let currency = data.currency;
        let sub: { subscriptionId: string; recordId: string } | undefined;
        if (plan && data.card && data.userId) {
          const first = await createFirstCharge(ctx, tx, {
            merchantId: merchant.id,
            plan,
            userId: data.userId,
            card: data.card,
            notifyUrl: data.notifyUrl ?? null,
            txnId: id,
            now,
            cardChannel: merchant.channel,
            couponCode: data.couponCode,
            email: emailOfAddress(data.billingAddress),
            customer: subscriberCustomer(data.billingAddress),
          });
          amount = first.amount;
          currency = plan.currency;
          sub = first;
        }
        const row = newRow(merchant, data, {
          id,
          amount,
          currency,
          now,
          clientIp: data.clientIp ?? opts.clientIp,
          sub,
        });
        await tx.insertTransaction(row);
        await tx.insertIdempotency(key(id));
        return { row, charge: data.paymentType !== 'CHECKOUT' };
      });

  if (!step.charge || !data.card) return transactionView(ctx, step.row);
  return transactionView(ctx, await chargeAccepted(ctx, merchant, step.row, data.card));
}

function newRow(
  merchant: MerchantRow,
  data: TransactionInput,
  a: {
    id: string;
    amount: number;
    currency: string;
    now: number;
    clientIp: string | undefined;
    sub: { subscriptionId: string; recordId: string } | undefined;
  },
): TransactionRow {
  const checkout = data.paymentType === 'CHECKOUT';
  return rowOf('transactions', {
    id: a.id,
    merchantId: merchant.id,
    relationId: data.relationId,
    requestId: data.requestId,
    paymentType: data.paymentType satisfies PaymentType,
    status: checkout ? STATUS.AWAITING_CHECKOUT : STATUS.ACCEPTED,
    amount: a.amount,
    currency: a.currency,
    // The sandbox settles in the charged currency: settlement amount = amount (SPEC §5 txnAmount).
    txnAmount: a.amount,
    txnCurrency: a.currency,
    refundedAmount: 0,
    refundReserved: 0,
    subscriptionId: a.sub?.subscriptionId ?? null,
    billingRecordId: a.sub?.recordId ?? null,
    planId: data.planId ?? null,
    userId: data.userId ?? null,
    cardBin: data.card?.bin ?? null,
    cardLast4: data.card?.last4 ?? null,
    cardBrand: data.card?.brand ?? null,
    clientIp: a.clientIp ?? null,
    returnUrl: data.returnUrl ?? null,
    failedUrl: data.failedUrl ?? null,
    cancelUrl: data.cancelUrl ?? null,
    notifyUrl: data.notifyUrl ?? null,
    billingAddress: data.billingAddress ?? null,
    shippingAddress: data.shippingAddress ?? null,
    items: data.items ?? null,
    channel: merchant.channel,
    pageToken: checkout ? randomToken(24) : null,
    pageExpiresAt: checkout ? a.now + PAGE_TTL_MS : null,
    checkoutDeclines: 0,
    createdAt: a.now,
    updatedAt: a.now,
  });
}

/** The channel's request for charging `row` with the customer present; the transaction id is its key. */
function chargeRequestOf(row: TransactionRow, card: ValidCard): ChargeRequest {
  return {
    idempotencyKey: row.id,
    amount: row.amount,
    currency: row.currency,
    card: channelCard(card, true),
    customerPresent: true,
    transactionId: row.id,
    keepCard: row.paymentType === 'SUBSCRIPTION',
  };
}

/** Charge an ACCEPTED transaction (customer present) and record the result; returns the row after. */
async function chargeAccepted(
  ctx: Ctx,
  merchant: MerchantRow,
  row: TransactionRow,
  card: ValidCard,
): Promise<TransactionRow> {
  if (await couponCoversFirstCharge(ctx.store, row)) return recordCoveredFirstCharge(ctx, row);
  const req = chargeRequestOf(row, card);
  const recorded = await chargeOnSandbox(ctx, row, req);
  if (recorded) return recorded;
  let result: ChargeResult;
  try {
    const channel = merchant.channel === 'stripe' ? ctx.channels.forMerchant(merchant) : ctx.channel;
    result = await channel.charge(req);
  } catch (e) {
    await ctx.store.transaction((tx) => tx.releaseCharge(row.id, ctx.clock.now(), CHARGE_LEASE_MS));
    throw e;
  }
  if (result.outcome === 'refused') return refusedCharge(ctx, row, result.message);
  return ctx.store.transaction(async (tx) => {
    if ('kept' in result && result.kept && row.subscriptionId) {
      const sub = await tx.getSubscription(row.merchantId, row.subscriptionId);
      if (sub?.cardId) await tx.setStripeCard(sub.cardId, result.kept);
    }
    await applyChargeResult(ctx, tx, row, STATUS.ACCEPTED, result, ctx.clock.now());
    return (await tx.getTransaction(row.id)) ?? row;
  });
}

/**
 * The channel did not run the charge at all (a revoked key, a missing permission): nothing moved.
 * The request is undone as if it had never come — a PAY's row, a SUBSCRIPTION's row with the
 * INCOMPLETE subscription, its INITIAL record, card row and plan place — and its requestId freed,
 * so the same request works once the key is fixed; the caller gets 9999 with the channel's reason.
 * Only a subscription that moved on meanwhile (cancelled while charging) is recorded FAILED instead.
 */
async function refusedCharge(ctx: Ctx, row: TransactionRow, message: string): Promise<never> {
  await ctx.store.transaction(async (tx) => {
    if (await tx.discardUncharged(row.id)) return;
    await finishUnpaid(ctx, tx, row, STATUS.ACCEPTED, STATUS.FAILED, 'processing_error', ctx.clock.now());
  });
  throw new PaygateError(
    RESULT_CODES.INTERNAL,
    `the payment channel refused the request, nothing was charged: ${message}`,
  );
}
