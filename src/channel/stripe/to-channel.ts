/** The Stripe adapter's answers in the channel interface's terms: plain mapping, no client, so a webhook can be applied by code that never loads `stripe`. */
import type { ChargeResult, KeptCard, RefundResult } from '../channel.js';
import type { StripeCardOnFile, StripeChargeResult, StripeRefundResult } from './results.js';

const keptOf = (c: StripeCardOnFile | null | undefined): KeptCard | undefined =>
  c?.customerId
    ? {
        customerId: c.customerId,
        paymentMethodId: c.paymentMethodId,
        brand: c.brand,
        last4: c.last4,
        expMonth: c.expMonth,
        expYear: c.expYear,
      }
    : undefined;

/** The adapter's answer in the channel interface's terms (Stripe's own codes stay inside the adapter). */
export function toChargeResult(r: StripeChargeResult, card?: StripeCardOnFile | null): ChargeResult {
  const kept = keptOf(card);
  switch (r.outcome) {
    case 'approved':
      return { outcome: 'approved', ref: r.ref, ...(kept ? { kept } : {}) };
    case 'declined':
      return { outcome: 'declined', ref: r.ref, reason: r.reason, ...(r.unmade ? { unmade: r.unmade } : {}) };
    case 'requires_action':
      return { outcome: 'requires_action', ref: r.ref, redirectUrl: r.redirectUrl, ...(kept ? { kept } : {}) };
    case 'in_flight':
      return { outcome: 'in_flight', ref: r.ref, moved: r.mayHaveMoved, cause: r.cause, ...(kept ? { kept } : {}) };
    case 'refused':
      return { outcome: 'refused', ref: null, message: r.message, cause: r.cause };
  }
}

export function toRefundResult(r: StripeRefundResult): RefundResult {
  switch (r.outcome) {
    case 'refunded':
      return { outcome: 'refunded', ref: r.ref };
    case 'pending':
      return { outcome: 'pending', ref: r.ref };
    case 'failed':
      return { outcome: 'failed', reason: r.reason };
    case 'in_flight':
      // Stripe may have made the refund: it stays PENDING and is settled from Stripe's answer later.
      return { outcome: 'pending', ref: r.ref };
    case 'refused':
      return { outcome: 'refused', message: r.message };
  }
}
