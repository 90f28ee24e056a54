import type Stripe from 'stripe';
import { mapFault, mapRefund, mapRefundError } from './map.js';
import type { StripeRefundResult } from './results.js';

export interface RefundInput {
  /** refundKey(refundId). */
  idempotencyKey: string;
  intentId: string;
  /** Minor units; paygate checks it against what is still refundable before calling. */
  amount: number;
  metadata?: Record<string, string>;
}

/** A Refund of the PaymentIntent: partial and repeated refunds are separate Refunds. */
export async function refundPayment(client: Stripe, input: RefundInput): Promise<StripeRefundResult> {
  try {
    const r = await client.refunds.create(
      { payment_intent: input.intentId, amount: input.amount, ...(input.metadata ? { metadata: input.metadata } : {}) },
      { idempotencyKey: input.idempotencyKey },
    );
    return mapRefund(r);
  } catch (err) {
    return mapRefundError(err);
  }
}

/** A pending (or in-flight) refund, read again. */
export async function retrieveRefund(client: Stripe, refundId: string): Promise<StripeRefundResult> {
  try {
    return mapRefund(await client.refunds.retrieve(refundId));
  } catch (err) {
    const r = mapFault(err, false);
    return r.outcome === 'in_flight' ? { ...r, ref: refundId, mayHaveMoved: true } : r;
  }
}
