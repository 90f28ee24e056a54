import type { Ctx } from '../ctx.js';
import type { ChargeResult } from '../channel/channel.js';
import type { WebhookSettlement } from '../channel/stripe/index.js';
import { toChargeResult, toRefundResult } from '../channel/stripe/to-channel.js';
import type { StripeRefundResult } from '../channel/stripe/results.js';
import { hasLoneSurrogate } from '../domain/text.js';
import type { RefundRow } from '../store/store.js';
import { recordRefundResult } from './refund.js';
import { finishSucceeded, finishUnpaid } from './transactions/outcome.js';
import { STATUS } from './transactions/view.js';

export type WebhookAnswer =
  | { status: 200; body: { status: 'ok' | 'ignored' } }
  | { status: 400 | 404; body: { status: 'rejected'; reason: string } };

const rejected = (status: 400 | 404, reason: string): WebhookAnswer => ({
  status,
  body: { status: 'rejected', reason },
});

/**
 * A Stripe event for one merchant (`POST /channel/stripe/{merchantId}/webhook`): verified over the
 * raw bytes with the merchant's signing secret, then applied. Every change is conditional on the
 * state it moves from, so an event delivered twice (or after the API answer, or after the renewal
 * run) changes nothing the second time. A bad signature changes nothing at all.
 */
export async function receiveStripeWebhook(
  ctx: Ctx,
  merchantId: string,
  payload: Buffer,
  signature: string | undefined,
): Promise<WebhookAnswer> {
  // The id comes from the URL path: U+0000 (which PostgreSQL cannot even compare with stored
  // text) or a lone surrogate names no merchant, answered alike on both engines.
  if (merchantId.includes('\u0000') || hasLoneSurrogate(merchantId)) return rejected(404, 'unknown merchant');
  const merchant = await ctx.store.getMerchant(merchantId);
  if (!merchant) return rejected(404, 'unknown merchant');
  if (!merchant.stripeWebhookSecretEnc)
    return rejected(400, 'no Stripe webhook secret is set for this merchant (merchant update --stripe-webhook-secret)');
  // loaded on first use: a server whose merchants all use the sandbox never needs the `stripe` package
  const { verifyWebhook } = await import('../channel/stripe/webhook.js');
  const v = verifyWebhook({
    payload,
    signatureHeader: signature,
    secret: ctx.vault.decrypt(merchant.stripeWebhookSecretEnc),
    now: ctx.clock.now(),
  });
  if (!v.ok) return rejected(400, v.reason);
  const applied = await apply(ctx, merchant.id, v.settlement);
  return { status: 200, body: { status: applied ? 'ok' : 'ignored' } };
}

async function apply(ctx: Ctx, merchantId: string, s: WebhookSettlement): Promise<boolean> {
  switch (s.kind) {
    case 'payment':
      return settlePayment(ctx, merchantId, s.intentId, toChargeResult(s.result));
    case 'refund':
      return settleRefund(ctx, merchantId, s);
    case 'charge_refunded': {
      let any = false;
      for (const r of s.refunds) any = (await settleRefund(ctx, merchantId, { ...r, intentId: s.intentId })) || any;
      return any;
    }
    case 'ignored':
      return false;
  }
}

/**
 * A payment paygate left in progress (100000 after a timeout or `processing`, 100040 waiting on
 * 3DS). Renewals are left to the renewal run, which records them with their billing record;
 * a payment paygate has not recorded the intent of yet (the event came first) is settled by the
 * API answer itself.
 */
async function settlePayment(ctx: Ctx, merchantId: string, intentId: string, r: ChargeResult): Promise<boolean> {
  const row = await ctx.store.getTransactionByChannelRef(merchantId, intentId);
  if (row?.channel !== 'stripe' || row.paymentType === 'RENEWAL') return false;
  const from = row.status;
  if (from !== STATUS.ACCEPTED && from !== STATUS.REQUIRES_3DS) return false;
  return ctx.store.transaction(async (tx) => {
    const now = ctx.clock.now();
    if (r.outcome === 'approved') return finishSucceeded(ctx, tx, row, from, r.ref, now);
    if (r.outcome === 'declined')
      return finishUnpaid(ctx, tx, row, from, STATUS.FAILED, r.reason, now, {
        notifySubscription: from === STATUS.REQUIRES_3DS,
      });
    return false;
  });
}

/**
 * A refund paygate left PENDING, found by the Refund's id or — when paygate never learnt that id
 * (a timeout, a 500 Stripe stored) — by the paygate refund id the Refund carries in its metadata.
 */
async function settleRefund(
  ctx: Ctx,
  merchantId: string,
  s: { refundId: string; tag: string | null; intentId: string | null; result: StripeRefundResult },
): Promise<boolean> {
  const refund =
    (await ctx.store.getRefundByChannelRef(merchantId, s.refundId)) ??
    (s.tag ? await taggedRefund(ctx, merchantId, s.tag, s.refundId, s.intentId) : undefined);
  if (refund?.status !== 'PENDING') return false;
  const result = toRefundResult(s.result);
  // Still pending: only worth noting when it teaches paygate the Refund's id (found by its tag).
  if (result.outcome === 'pending' && refund.channelRef) return false;
  await ctx.store.transaction((tx) => recordRefundResult(ctx, tx, refund.transactionId, refund, result));
  return true;
}

/** The merchant's refund named by a Refund's tag, if it is the refund of that intent and knows no other Refund. */
async function taggedRefund(
  ctx: Ctx,
  merchantId: string,
  tag: string,
  refundId: string,
  intentId: string | null,
): Promise<RefundRow | undefined> {
  const refund = await ctx.store.getRefund(tag);
  if (refund?.merchantId !== merchantId || (refund.channelRef !== null && refund.channelRef !== refundId)) return;
  const txn = await ctx.store.getTransaction(refund.transactionId);
  if (txn?.channel !== 'stripe' || (intentId !== null && txn.channelRef !== intentId)) return;
  return refund;
}
