import type { Ctx } from '../../ctx.js';
import { notAllowed, notFound, PaygateError, RESULT_CODES } from '../../domain/errors.js';
import { newId } from '../../domain/ids.js';
import { formatTime } from '../../domain/time.js';
import { rowOf, type TransactionRow, type Tx } from '../../store/store.js';
import { channelCard, maskStored, sealCard, type ValidCard } from '../../vault/card.js';
import { applyChargeResult, finishUnpaid } from '../transactions/outcome.js';
import { pageUrl, STATUS } from '../transactions/view.js';
import { linkUsedUp } from './link.js';
import { cardReplaceable } from './rules.js';
import { withArticle } from '../../domain/words.js';

/** What a card update answers: the CARD_CHECK transaction's status, as transaction responses give it. */
export interface CardUpdateResult {
  subscriptionId: string;
  subscriptionCode: string;
  transactionOrderId: string;
  /**
   * 200000 the card replaced the old one; 100040 send the subscriber to `url` (3-D Secure) first;
   * 300000 declined, the old card stays; 100000 Stripe has not answered yet (settled by its
   * webhook or the renewal run; the old card stays until then).
   */
  status: string;
  url?: string;
  failReason?: string;
  /** The card on file after the request, masked. */
  card?: string;
  nextBillingTime?: string;
}

/**
 * Replace a subscription's card: the new card is checked with a zero-amount, customer-present
 * charge through the merchant's channel (so it may ask for 3-D Secure), and only an approved
 * check puts it in the old card's place (services/card-update/outcome.ts). The channel is called
 * between two units of work, with the check's transaction id as its idempotency key.
 *
 * On the sandbox the new card is vaulted (number encrypted). On Stripe the card becomes a
 * PaymentMethod saved on the subscription's Customer by a SetupIntent (no number stored, no
 * money moved); its ids are recorded on the new card row as soon as Stripe names them, and the
 * row replaces the old card only once the SetupIntent succeeded.
 */
export async function replaceCard(
  ctx: Ctx,
  merchantId: string,
  subscriptionId: string,
  card: ValidCard,
  opts: {
    viaLink?: string;
    /** Where a 3-D Secure challenge returns to, made for the check's transaction id (the customer portal). */
    returnUrl?: (transactionId: string) => string;
  } = {},
): Promise<CardUpdateResult> {
  const merchant = await ctx.store.getMerchant(merchantId);
  const onStripe = merchant?.channel === 'stripe';
  const intent = await ctx.store.transaction(async (tx) => {
    const s = await tx.lockSubscription(merchantId, subscriptionId);
    if (!s) throw notFound('subscription');
    if (!cardReplaceable(s.status)) throw notAllowed(`cannot update the card of ${withArticle(s.status)} subscription`);
    // Checked again under the subscription's lock: concurrent submissions on one page cannot
    // all pass the limit the page was opened under, nor both replace the card.
    if (opts.viaLink !== undefined) {
      if (s.cardUpdateToken !== opts.viaLink || linkUsedUp(s)) throw notFound('page');
      await refuseWhileChecking(ctx, tx, s.id);
    }
    // Every check while a link lives counts against it, the merchant's API ones too.
    if (s.cardUpdateToken !== null) await tx.countCardLinkCheck(s.id);
    const now = ctx.clock.now();
    const vaulted = sealCard(ctx.vault, merchantId, card, now, onStripe ? 'stripe' : 'sandbox');
    await tx.insertCard(rowOf('cards', vaulted));
    // The card Stripe keeps now names the subscription's Customer: the new card joins it.
    const current = onStripe && s.cardId !== null ? await tx.getCard(s.cardId) : undefined;
    const id = newId('txn', now);
    const back = opts.returnUrl?.(id) ?? null;
    const row: TransactionRow = rowOf('transactions', {
      id,
      merchantId,
      paymentType: 'CARD_CHECK',
      status: STATUS.ACCEPTED,
      amount: 0,
      currency: s.currency,
      refundedAmount: 0,
      refundReserved: 0,
      subscriptionId: s.id,
      planId: s.planId,
      userId: s.userId,
      cardBin: card.bin,
      cardLast4: card.last4,
      cardBrand: card.brand,
      // The customer portal's card form: after a 3-D Secure challenge, back to the portal.
      returnUrl: back,
      failedUrl: back,
      // No callback for a card check: the merchant has the answer, and a 3DS result shows on the page.
      notifyUrl: null,
      channel: onStripe ? 'stripe' : ctx.channel.name,
      cardId: vaulted.id,
      checkoutDeclines: 0,
      createdAt: now,
      updatedAt: now,
    });
    await tx.insertTransaction(row);
    const customerId = current?.channel === 'stripe' ? current.stripeCustomerId : null;
    return { row, code: s.code, customerId };
  });
  const result =
    onStripe && merchant
      ? await ctx.channels.forMerchant(merchant).charge({
          idempotencyKey: intent.row.id,
          amount: 0,
          currency: intent.row.currency,
          card: channelCard(card, true),
          customerPresent: true,
          transactionId: intent.row.id,
          keepCard: true,
          ...(intent.customerId ? { customerId: intent.customerId } : {}),
        })
      : await ctx.channel.charge({
          idempotencyKey: intent.row.id,
          amount: 0,
          currency: intent.row.currency,
          card: channelCard(card, true),
          customerPresent: true,
        });
  if (result.outcome === 'refused') return refusedCheck(ctx, intent.row, result.message);
  const after = await ctx.store.transaction(async (tx) => {
    if ('kept' in result && result.kept && intent.row.cardId) await tx.setStripeCard(intent.row.cardId, result.kept);
    await applyChargeResult(ctx, tx, intent.row, STATUS.ACCEPTED, result, ctx.clock.now());
    return (await tx.getTransaction(intent.row.id)) ?? intent.row;
  });
  return cardUpdateView(ctx, after, intent.code);
}

/**
 * A card entered on a link whose previous card is still being checked: the first one decides. Two
 * submissions racing on one link would otherwise both be approved and both show "Card updated",
 * the later one silently replacing the earlier. One waiting for 3-D Secure is where the subscriber
 * goes on (its own page, while it works); one the processor is still deciding ends the attempt.
 */
async function refuseWhileChecking(ctx: Ctx, tx: Tx, subscriptionId: string): Promise<void> {
  const openId = await tx.openCardCheckId(subscriptionId);
  const open = openId === undefined ? undefined : await tx.getTransaction(openId);
  if (!open) return;
  const now = ctx.clock.now();
  if (open.status === STATUS.REQUIRES_3DS) {
    // A challenge page that ran out cannot approve anything any more: it holds nothing back.
    if ((open.pageExpiresAt ?? 0) <= now) return;
    throw new CardLinkInUse(pageUrl(ctx, open));
  }
  throw new CardLinkInUse(undefined);
}

/** A submission on a card-update link while an earlier one is being checked (not a PaygateError: pages only). */
export class CardLinkInUse extends Error {
  /** The 3-D Secure page of the earlier check, when it waits for the subscriber there. */
  readonly threeDsUrl: string | undefined;
  constructor(threeDsUrl: string | undefined) {
    super('a card submitted on this link is still being checked');
    this.threeDsUrl = threeDsUrl;
  }
}

/**
 * The channel did not run the check at all (a revoked key, a missing permission): nothing was
 * set up, the old card stays. The check ends FAILED (processing_error) and the caller gets 9999
 * with the channel's reason, as a payment would.
 */
async function refusedCheck(ctx: Ctx, row: TransactionRow, message: string): Promise<never> {
  await ctx.store.transaction((tx) =>
    finishUnpaid(ctx, tx, row, STATUS.ACCEPTED, STATUS.FAILED, 'processing_error', ctx.clock.now()),
  );
  throw new PaygateError(
    RESULT_CODES.INTERNAL,
    `the payment channel refused the request, the card was not changed: ${message}`,
  );
}

export async function cardUpdateView(ctx: Ctx, txn: TransactionRow, code: string): Promise<CardUpdateResult> {
  const s = txn.subscriptionId ? await ctx.store.getSubscriptionById(txn.subscriptionId) : undefined;
  const onFile = s?.cardId ? await ctx.store.getCard(s.cardId) : undefined;
  const masked = onFile ? maskStored(onFile.bin, onFile.last4) : undefined;
  const next = s ? await ctx.store.nextBillingTime(s.id) : null;
  const url = pageUrl(ctx, txn);
  return {
    subscriptionId: txn.subscriptionId ?? '',
    subscriptionCode: code,
    transactionOrderId: txn.id,
    status: String(txn.status),
    ...(url ? { url } : {}),
    ...(txn.failReason ? { failReason: txn.failReason } : {}),
    ...(masked ? { card: masked } : {}),
    ...(next !== null ? { nextBillingTime: formatTime(next, ctx.zone) } : {}),
  };
}
