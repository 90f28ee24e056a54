import type { Ctx } from '../ctx.js';
import type { ChargeResult } from '../channel/channel.js';
import type { WebhookSettlement } from '../channel/stripe/index.js';
import { toChargeResult, toRefundResult } from '../channel/stripe/to-channel.js';
import type { StripeRefundResult } from '../channel/stripe/results.js';
import { hasLoneSurrogate } from '../domain/text.js';
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
      return settleRefund(ctx, merchantId, s.refundId, s.result);
    case 'charge_refunded': {
      let any = false;
      for (const r of s.refunds) any = (await settleRefund(ctx, merchantId, r.refundId, r.result)) || any;
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

async function settleRefund(ctx: Ctx, merchantId: string, refundId: string, r: StripeRefundResult): Promise<boolean> {
  const refund = await ctx.store.getRefundByChannelRef(merchantId, refundId);
  if (refund?.status !== 'PENDING') return false;
  const result = toRefundResult(r);
  if (result.outcome === 'pending') return false;
  await ctx.store.transaction((tx) => recordRefundResult(ctx, tx, refund.transactionId, refund, result));
  return true;
}
