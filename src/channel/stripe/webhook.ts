import Stripe from 'stripe';
import { checkEvent, type CheckedEvent } from './event-shape.js';
import { mapIntent, mapRefund } from './map.js';
import { REFUND_TAG } from './refunds.js';
import { mapSetupIntent } from './setup-intents.js';
import type { StripeChargeResult, StripeRefundResult } from './results.js';

/** What a verified event settles, in paygate's terms. */
export type WebhookSettlement =
  /** A PaymentIntent (pi_…) or a SetupIntent (seti_…) that ended. */
  | { kind: 'payment'; intentId: string; result: StripeChargeResult }
  /** tag: the paygate refund id the Refund was made for (its metadata), when it carries one. */
  | { kind: 'refund'; refundId: string; tag: string | null; intentId: string | null; result: StripeRefundResult }
  /**
   * The charge's refunded total changed. Refunds listed on the charge (older API versions
   * include them) are mapped; otherwise the refunds are settled by their own refund.updated.
   */
  | {
      kind: 'charge_refunded';
      chargeId: string;
      intentId: string | null;
      amountRefunded: number;
      refunds: Array<{ refundId: string; tag: string | null; result: StripeRefundResult }>;
    }
  | { kind: 'ignored' };

export type WebhookVerification =
  | { ok: true; eventId: string; type: string; createdAt: number; settlement: WebhookSettlement }
  | { ok: false; reason: string };

export interface WebhookInput {
  /** The raw request body, byte for byte: a re-serialised JSON object fails verification. */
  payload: Buffer | string;
  signatureHeader: string | undefined;
  /** The merchant's endpoint signing secret (whsec_…). */
  secret: string;
  /** paygate's clock, epoch ms: the signature's timestamp must be within the tolerance of it. */
  now: number;
  toleranceSeconds?: number;
}

const idOf = (v: string | { id: string } | null | undefined): string | null =>
  v == null ? null : typeof v === 'string' ? v : v.id;

/** The paygate refund id a Refund is tagged with; a value that cannot be one (edited by hand) is no tag. */
function tagOf(r: Stripe.Refund): string | null {
  const v: unknown = r.metadata?.[REFUND_TAG];
  return typeof v === 'string' && /^rfd_[0-9A-Za-z]{1,60}$/.test(v) ? v : null;
}

/** What a checked event settles; its object's fields were checked by checkEvent for its type. */
function settlementOf(event: CheckedEvent): WebhookSettlement {
  switch (event.type) {
    case 'payment_intent.succeeded':
    case 'payment_intent.payment_failed': {
      const pi = event.object as Stripe.PaymentIntent;
      return { kind: 'payment', intentId: pi.id, result: mapIntent(pi) };
    }
    case 'setup_intent.succeeded':
    case 'setup_intent.setup_failed': {
      // A card saved without a charge (a trial, a card update) settles like a payment: by its intent.
      const si = event.object as Stripe.SetupIntent;
      return { kind: 'payment', intentId: si.id, result: mapSetupIntent(si) };
    }
    case 'refund.updated': {
      const r = event.object as Stripe.Refund;
      return { kind: 'refund', refundId: r.id, tag: tagOf(r), intentId: idOf(r.payment_intent), result: mapRefund(r) };
    }
    case 'charge.refunded': {
      const ch = event.object as Stripe.Charge & { refunds?: { data?: Stripe.Refund[] } | null };
      return {
        kind: 'charge_refunded',
        chargeId: ch.id,
        intentId: idOf(ch.payment_intent),
        amountRefunded: ch.amount_refunded,
        refunds: (ch.refunds?.data ?? []).map((r) => ({ refundId: r.id, tag: tagOf(r), result: mapRefund(r) })),
      };
    }
    default:
      return { kind: 'ignored' };
  }
}

/**
 * Verifies `Stripe-Signature` with the client's own verifier (HMAC-SHA256 over "t.payload",
 * constant-time compare, timestamp tolerance) and maps the event. A bad signature changes nothing.
 */
export function verifyWebhook(input: WebhookInput): WebhookVerification {
  if (!input.signatureHeader) return { ok: false, reason: 'missing Stripe-Signature header' };
  let raw: unknown;
  try {
    raw = Stripe.webhooks.constructEvent(
      input.payload,
      input.signatureHeader,
      input.secret,
      input.toleranceSeconds ?? 300,
      undefined,
      input.now,
    );
  } catch (err) {
    if (err instanceof Stripe.errors.StripeSignatureVerificationError)
      return { ok: false, reason: 'signature does not verify' };
    if (err instanceof SyntaxError) return { ok: false, reason: 'payload is not JSON' };
    throw err;
  }
  // Signed is not well-formed: an event without what its type needs is refused, never half-read.
  const checked = checkEvent(raw);
  if (!checked.ok) return { ok: false, reason: checked.reason };
  const { event } = checked;
  return {
    ok: true,
    eventId: event.id,
    type: event.type,
    createdAt: event.created * 1000,
    settlement: settlementOf(event),
  };
}
