import type Stripe from 'stripe';
import type { AbandonResult, Channel, ChargeRequest, ChargeResult, RefundResult } from '../channel.js';
import { abandonIntent, abandonSetup } from './cancel.js';
import { createStripeClient } from './client.js';
import { paymentKey } from './idempotency-keys.js';
import { chargeOffSession, createAndConfirmPayment, resumePayment, retrieveIntent } from './payments.js';
import { refundPayment, retrieveRefund } from './refunds.js';
import { isSetupIntentId, resumeSetup, retrieveSetup, setUpCard } from './setup-intents.js';
import { toChargeResult, toRefundResult } from './to-channel.js';

export { toChargeResult, toRefundResult };

export interface StripeChannelOptions {
  secretKey: string;
  apiUrl: string;
  /** paygate's public base URL: Stripe sends the shopper back to `${publicUrl}/3ds/return/{transaction}`. */
  publicUrl: string;
  timeoutMs?: number;
}

/**
 * The services' channel key (`txn_…`, `txn_…:2` for a checkout's second card, a billing record
 * id) → the adapter's base key `paygate:ID:ATTEMPT`, from which each call derives its own.
 */
export function stripeBaseKey(channelKey: string): string {
  const [id = '', attempt] = channelKey.split(':');
  return paymentKey(id, attempt === undefined ? 0 : Number(attempt));
}

export const threeDsReturnUrl = (publicUrl: string, transactionId: string): string =>
  `${publicUrl.replace(/\/+$/, '')}/3ds/return/${encodeURIComponent(transactionId)}`;

/** One merchant's Stripe account behind the channel interface. */
export function createStripeChannel(opts: StripeChannelOptions): Channel & { client: Stripe } {
  const client = createStripeClient({
    secretKey: opts.secretKey,
    apiUrl: opts.apiUrl,
    ...(opts.timeoutMs ? { timeoutMs: opts.timeoutMs } : {}),
  });
  return {
    name: 'stripe',
    client,
    async charge(req: ChargeRequest): Promise<ChargeResult> {
      const idempotencyKey = stripeBaseKey(req.idempotencyKey);
      if (req.stored) {
        // Nothing to charge (a renewal or plan change paid by carried credit): a PaymentIntent
        // cannot be for 0, and the card was checked when Stripe saved it. The reference is the
        // PaymentMethod that would have paid; there is nothing to refund.
        if (req.amount === 0)
          return req.stored.lookOnly
            ? { outcome: 'declined', ref: null, reason: 'processing_error', unmade: true }
            : { outcome: 'approved', ref: req.stored.paymentMethodId };
        const r = await chargeOffSession(client, {
          idempotencyKey,
          amount: req.amount,
          currency: req.currency,
          customerId: req.stored.customerId,
          paymentMethodId: req.stored.paymentMethodId,
          ...(req.stored.triedBefore ? { triedBefore: true } : {}),
          ...(req.stored.lookOnly ? { lookOnly: true } : {}),
        });
        return toChargeResult(r);
      }
      if (!req.transactionId || !req.card)
        throw new Error('stripe channel: a customer-present charge needs the card and its transaction id (3DS return)');
      if (req.amount === 0) {
        // A card check: a PaymentIntent cannot be for 0, a SetupIntent saves the card without charging.
        const r = await setUpCard(client, {
          idempotencyKey,
          card: req.card,
          customerId: req.customerId ?? null,
          returnUrl: threeDsReturnUrl(opts.publicUrl, req.transactionId),
          ...(req.card.holderName ? { customer: { name: req.card.holderName } } : {}),
          metadata: { paygate_transaction: req.transactionId },
        });
        return toChargeResult(r, r.card);
      }
      const r = await createAndConfirmPayment(client, {
        idempotencyKey,
        amount: req.amount,
        currency: req.currency,
        source: { card: req.card },
        returnUrl: threeDsReturnUrl(opts.publicUrl, req.transactionId),
        saveForOffSession: req.keepCard === true,
        ...(req.card.holderName ? { customer: { name: req.card.holderName } } : {}),
        metadata: { paygate_transaction: req.transactionId },
      });
      return toChargeResult(r, r.card);
    },
    completeAction(): Promise<ChargeResult> {
      // Stripe runs the challenge on its own page; the result is read with retrieve().
      return Promise.reject(new Error("stripe channel: 3-D Secure is completed on Stripe, not on paygate's page"));
    },
    async refund(req): Promise<RefundResult> {
      return toRefundResult(
        await refundPayment(client, {
          refundId: req.idempotencyKey,
          intentId: req.chargeRef,
          amount: req.amount,
          ...(req.triedBefore ? { triedBefore: true } : {}),
        }),
      );
    },
    async retrieveRefund(ref) {
      return toRefundResult(await retrieveRefund(client, ref));
    },
    async resume(r) {
      if (isSetupIntentId(r.ref)) {
        const returnUrl = r.transactionId ? threeDsReturnUrl(opts.publicUrl, r.transactionId) : undefined;
        return toChargeResult(
          await resumeSetup(client, {
            idempotencyKey: stripeBaseKey(r.idempotencyKey),
            intentId: r.ref,
            ...(returnUrl ? { returnUrl } : {}),
          }),
        );
      }
      return toChargeResult(
        await resumePayment(client, {
          idempotencyKey: stripeBaseKey(r.idempotencyKey),
          intentId: r.ref,
          mode: r.transactionId
            ? { returnUrl: threeDsReturnUrl(opts.publicUrl, r.transactionId) }
            : { offSession: true },
        }),
      );
    },
    async retrieve(ref) {
      return toChargeResult(
        isSetupIntentId(ref) ? await retrieveSetup(client, ref) : await retrieveIntent(client, ref),
      );
    },
    async abandon(r): Promise<AbandonResult> {
      const input = { intentId: r.ref, idempotencyKey: stripeBaseKey(r.idempotencyKey) };
      const a = isSetupIntentId(r.ref) ? await abandonSetup(client, input) : await abandonIntent(client, input);
      return a.outcome === 'cancelled' ? a : toChargeResult(a);
    },
  };
}
