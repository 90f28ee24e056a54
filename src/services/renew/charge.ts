import type { Ctx } from '../../ctx.js';
import type { ChargeResult, FailReason } from '../../channel/channel.js';
import { channelOf } from '../channel-of.js';
import type { ClaimedRecord } from '../../store/store.js';
import { cardExpired } from '../../vault/card.js';

export type ChargeOutcome =
  /** ref null: nothing went to the channel (a charge the coupon brought to zero). */
  | { approved: true; ref: string | null }
  | { approved: false; reason: FailReason; ref: string | null }
  /**
   * The channel has not said (a timeout, a 5xx, still processing) or would not run the call (a
   * revoked key): nothing is recorded, the record stays claimed until its lease ends and the next
   * run charges it again with the same idempotency key, which finds the first charge, never a second.
   */
  | { waiting: true; ref: string | null }
  /**
   * No charge was made under the record's key and none can be any more (the channel closed the
   * key): a renewal taken over after its run died, on a subscription cancelled or paused since.
   * The record ends CANCELLED with nothing charged.
   */
  | { cancelled: true; ref: string | null };

/**
 * Charge one claimed record through the channel: merchant-initiated (never 3DS), the record id
 * as idempotency key (a run that takes the record over gets the first result, no second charge),
 * retryCount from the record. MUST NOT run inside a database transaction. The card number is
 * decrypted only here, for this call, and never leaves it.
 */
export async function chargeRecord(
  ctx: Ctx,
  rec: ClaimedRecord,
  now: number,
  claimedAt: number = now,
): Promise<ChargeOutcome> {
  // Only a record that already had its charge under way when the subscription was cancelled or
  // paused is still PENDING then (cancelUnclaimedRecords): the run that sent it died and this one
  // took it over. Ask the channel about that charge only; never send a new one.
  if (rec.subscriptionStatus !== 'ACTIVE') return askByKey(ctx, rec);
  // SPEC §19: a charge the coupon brought to zero is paid without calling the channel.
  if (rec.amount === 0 && rec.discountAmount > 0) return { approved: true, ref: null };
  if (rec.cardChannel === 'stripe') return chargeKeptCard(ctx, rec, now, claimedAt);
  if (rec.panEnc === null || rec.expMonth === null || rec.expYear === null) {
    // No card on file (cannot happen for a charge-able subscription; see docs/renewals.md).
    return { approved: false, reason: 'processing_error', ref: null };
  }
  // SPEC §6: an expired card fails the attempt without calling the channel.
  if (cardExpired(rec.expMonth, rec.expYear, now, ctx.zone))
    return { approved: false, reason: 'expired_card', ref: null };
  const result = await ctx.channel.charge({
    idempotencyKey: rec.id,
    amount: rec.amount,
    currency: rec.currency,
    card: { number: ctx.vault.decrypt(rec.panEnc), expMonth: rec.expMonth, expYear: rec.expYear },
    customerPresent: false,
    retryCount: rec.retryCount,
  });
  return outcomeOf(result);
}

/**
 * A renewal taken over (its lease ran out: the run that claimed it died) on a subscription that
 * is no longer ACTIVE: what became of the charge the dead run may have sent, from the channel's
 * answer for the record's idempotency key — the charge made (approved or declined, recorded as
 * any outcome), or, when none was made, the key closed so a late call with it cannot charge
 * either (`cancelled`). A channel that cannot be asked by key leaves the record waiting: it is
 * asked again after the next lease, never charged.
 */
async function askByKey(ctx: Ctx, rec: ClaimedRecord): Promise<ChargeOutcome> {
  // Nothing went to the channel for a charge the coupon brought to zero.
  if (rec.amount === 0 && rec.discountAmount > 0) return { cancelled: true, ref: null };
  let result: ChargeResult;
  if (rec.cardChannel === 'stripe') {
    // Stripe keeps no charges by key: the intent the dead run made (its id kept, or found on the
    // Customer by the key's tag) is read, and when there is none nothing is created.
    if (!rec.stripeCustomerId || !rec.stripePaymentMethodId) return { waiting: true, ref: null };
    const txn = rec.transactionId ? await ctx.store.getTransaction(rec.transactionId) : undefined;
    const card = { customerId: rec.stripeCustomerId, paymentMethodId: rec.stripePaymentMethodId };
    result = await stripeCharge(ctx, rec, card, txn?.channelRef ?? null, { lookOnly: true });
  } else {
    if (!ctx.channel.chargeByKey) return { waiting: true, ref: null };
    result = await ctx.channel.chargeByKey({
      idempotencyKey: rec.id,
      amount: rec.amount,
      currency: rec.currency,
      customerPresent: false,
    });
  }
  if (result.outcome === 'declined' && result.unmade) return { cancelled: true, ref: result.ref };
  return outcomeOf(result);
}

function outcomeOf(result: ChargeResult): ChargeOutcome {
  if (result.outcome === 'approved') return { approved: true, ref: result.ref };
  if (result.outcome === 'declined') return { approved: false, reason: result.reason, ref: result.ref };
  if (result.outcome === 'in_flight' || result.outcome === 'refused') return { waiting: true, ref: result.ref };
  // A merchant-initiated charge cannot complete a challenge: a channel asking for one is a decline.
  return { approved: false, reason: 'authentication_failed', ref: result.ref };
}

/**
 * The renewal's off-session charge at Stripe under its key: the intent an earlier run made read
 * again when its id was kept, else charged (or, with `lookOnly`, only looked for by the key's tag).
 */
async function stripeCharge(
  ctx: Ctx,
  rec: ClaimedRecord,
  card: { customerId: string; paymentMethodId: string },
  earlier: string | null,
  how: { triedBefore?: boolean; lookOnly?: boolean },
): Promise<ChargeResult> {
  const channel = await channelOf(ctx, rec.merchantId, 'stripe');
  const idempotencyKey = `${rec.id}:${rec.retryCount}`;
  if (earlier && channel.resume) return channel.resume({ ref: earlier, idempotencyKey });
  return channel.charge({
    idempotencyKey,
    amount: rec.amount,
    currency: rec.currency,
    customerPresent: false,
    retryCount: rec.retryCount,
    stored: { ...card, ...how },
  });
}

/** A card Stripe keeps: charged off-session by its Customer and PaymentMethod ids (no number here). */
async function chargeKeptCard(ctx: Ctx, rec: ClaimedRecord, now: number, claimedAt: number): Promise<ChargeOutcome> {
  if (!rec.stripeCustomerId || !rec.stripePaymentMethodId || rec.expMonth === null || rec.expYear === null) {
    return { approved: false, reason: 'processing_error', ref: null };
  }
  if (cardExpired(rec.expMonth, rec.expYear, now, ctx.zone))
    return { approved: false, reason: 'expired_card', ref: null };
  // Taken over after a run left it in flight: settle that charge, never make a second one (its
  // keys may be forgotten by now).
  const txn = rec.transactionId ? await ctx.store.getTransaction(rec.transactionId) : undefined;
  const earlier = txn?.channelRef ?? null;
  // The claim writes a new record's transaction at the claim's time: an older one means an
  // earlier run sent this charge and no answer was kept.
  const triedBefore = txn !== undefined && txn !== null && txn.createdAt < claimedAt;
  const card = { customerId: rec.stripeCustomerId, paymentMethodId: rec.stripePaymentMethodId };
  const result = await stripeCharge(ctx, rec, card, earlier, triedBefore ? { triedBefore } : {});
  if (result.outcome === 'in_flight' && result.ref && rec.transactionId && result.ref !== earlier) {
    const txnId = rec.transactionId;
    const ref = result.ref;
    await ctx.store.transaction((tx) =>
      tx.updateTransactionIf(txnId, 100000, { channelRef: ref, updatedAt: ctx.clock.now() }),
    );
  }
  return outcomeOf(result);
}
