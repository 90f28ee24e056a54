import { ok, type EngineCtx, type OpResult } from './engine-ctx.js';
import { invalidRequest } from './errors.js';
import { str, type FormObject } from './form.js';
import { intent } from './ops-intents.js';
import { renderIntent } from './render.js';

/** Stripe's accepted cancellation reasons (anything else is a 400, as on Stripe). */
const REASONS = new Set(['duplicate', 'fraudulent', 'requested_by_customer', 'abandoned']);

/** Only these may be cancelled; a card intent `processing` may not (Stripe allows it for some other methods only). */
const CANCELABLE = new Set(['requires_payment_method', 'requires_confirmation', 'requires_action']);

/**
 * POST /v1/payment_intents/:id/cancel. A cancelled intent can no longer be confirmed nor finish
 * its 3-D Secure challenge; one that already succeeded (or is processing) answers 400
 * payment_intent_unexpected_state with the intent, as Stripe does.
 */
export function cancelIntent(ctx: EngineCtx, id: string, params: FormObject): OpResult {
  const pi = intent(ctx, id);
  const reason = str(params, 'cancellation_reason');
  if (reason !== undefined && !REASONS.has(reason)) {
    throw invalidRequest(
      `Invalid cancellation_reason: must be one of duplicate, fraudulent, requested_by_customer, or abandoned`,
      { param: 'cancellation_reason' },
    );
  }
  if (!CANCELABLE.has(pi.status)) {
    throw invalidRequest(
      `You cannot cancel this PaymentIntent because it has a status of ${pi.status}. Only a PaymentIntent with one of the following statuses may be canceled: requires_payment_method, requires_capture, requires_confirmation, requires_action, processing.`,
      { code: 'payment_intent_unexpected_state', payment_intent: renderIntent(ctx.acct, pi, ctx.baseUrl) },
    );
  }
  pi.status = 'canceled';
  pi.canceledAt = ctx.now;
  pi.cancellationReason = reason ?? null;
  const body = renderIntent(ctx.acct, pi, ctx.baseUrl);
  ctx.emit({ type: 'payment_intent.canceled', object: body });
  return ok(body);
}
