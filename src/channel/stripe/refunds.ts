import type Stripe from 'stripe';
import { refundKey } from './idempotency-keys.js';
import { mapFault, mapRefund, mapRefundError } from './map.js';
import type { InFlight, Refused, StripeRefundResult } from './results.js';

/** The metadata that names the paygate refund a Stripe Refund was made for, so it can be found without its id. */
export const REFUND_TAG = 'paygate_refund';

export interface RefundInput {
  /** paygate's refund id: the idempotency key is refundKey(refundId), the Refund's tag is the id itself. */
  refundId: string;
  intentId: string;
  /** Minor units; paygate checks it against what is still refundable before calling. */
  amount: number;
  /**
   * An earlier call for this refund was sent and its answer never learnt (a timeout, a 500 Stripe
   * stored for the key): Stripe may have made the Refund and, after 24 hours, forgotten the key,
   * so the PaymentIntent's Refunds are searched for its tag before one is ever asked for again.
   */
  triedBefore?: boolean;
}

/**
 * A Refund of the PaymentIntent: partial and repeated refunds are separate Refunds. Each carries
 * paygate's refund id in its metadata, so a Refund whose answer was lost is adopted, never repeated.
 */
export async function refundPayment(client: Stripe, input: RefundInput): Promise<StripeRefundResult> {
  if (input.triedBefore) {
    const found = await findTagged(client, input.intentId, input.refundId);
    // Stripe could not be asked: the refund stays as it is rather than risk a second one.
    if (found && 'outcome' in found) return found;
    if (found) return mapRefund(found);
  }
  try {
    const r = await client.refunds.create(
      { payment_intent: input.intentId, amount: input.amount, metadata: { [REFUND_TAG]: input.refundId } },
      { idempotencyKey: refundKey(input.refundId) },
    );
    return mapRefund(r);
  } catch (err) {
    return mapRefundError(err);
  }
}

/**
 * The Refund of this intent tagged with this refund id; null when there is none (none was made),
 * or the fault that kept Stripe from answering. Every page is read: the list is newest first and
 * a refund retried late may be older than the intent's later ones.
 */
async function findTagged(
  client: Stripe,
  intentId: string,
  refundId: string,
): Promise<Stripe.Refund | null | InFlight | Refused> {
  try {
    let startingAfter: string | undefined;
    for (;;) {
      const page = await client.refunds.list({
        payment_intent: intentId,
        limit: 100,
        ...(startingAfter ? { starting_after: startingAfter } : {}),
      });
      const hit = page.data.find((r) => r.metadata?.[REFUND_TAG] === refundId);
      if (hit) return hit;
      const last = page.data.at(-1);
      if (!page.has_more || !last) return null;
      startingAfter = last.id;
    }
  } catch (err) {
    return mapFault(err, true);
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
