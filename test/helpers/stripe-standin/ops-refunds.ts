import { int, ok, type EngineCtx, type OpResult } from './engine-ctx.js';
import { invalidRequest, missing } from './errors.js';
import { str, stringMap, type FormObject } from './form.js';
import { intent } from './ops-intents.js';
import { renderCharge, renderRefund } from './render.js';
import { stripeId, type RefundState } from './state.js';

/** Refunds of a PaymentIntent's charge: partial, repeated, succeeded at once or pending. */
function refund(ctx: EngineCtx, id: string): RefundState {
  const r = ctx.acct.refunds.get(id);
  if (!r) throw missing('refund', id, 'refund');
  return r;
}

function unrefunded(ctx: EngineCtx, chargeId: string, amount: number): number {
  let taken = 0;
  for (const r of ctx.acct.refunds.values()) {
    if (r.chargeId === chargeId && (r.status === 'pending' || r.status === 'succeeded')) taken += r.amount;
  }
  return amount - taken;
}

export function createRefund(ctx: EngineCtx, params: FormObject): OpResult {
  const piId = str(params, 'payment_intent');
  const chargeParam = str(params, 'charge');
  let chargeId: string | undefined;
  if (piId) {
    const pi = intent(ctx, piId);
    chargeId = pi.status === 'succeeded' ? pi.chargeIds.at(-1) : undefined;
    if (!chargeId) {
      throw invalidRequest(`This PaymentIntent (${piId}) does not have a successful charge to refund.`, {
        code: 'charge_not_refundable',
        param: 'payment_intent',
      });
    }
  } else if (chargeParam) {
    chargeId = chargeParam;
  } else {
    throw invalidRequest('One of the following params should be provided for this request: payment_intent or charge.');
  }
  const ch = ctx.acct.charges.get(chargeId);
  if (!ch) throw missing('charge', chargeId, 'charge');
  const left = unrefunded(ctx, ch.id, ch.amount);
  if (left <= 0)
    throw invalidRequest(`Charge ${ch.id} has already been refunded.`, { code: 'charge_already_refunded' });
  const amount = int(params, 'amount', false) ?? left;
  if (amount < 1)
    throw invalidRequest('This value must be greater than or equal to 1.', {
      code: 'parameter_invalid_integer',
      param: 'amount',
    });
  if (amount > left) {
    throw invalidRequest(`Refund amount (${amount}) is greater than unrefunded amount on charge (${left})`, {
      code: 'amount_too_large',
      param: 'amount',
    });
  }
  const r: RefundState = {
    id: stripeId('re'),
    created: ctx.now,
    chargeId: ch.id,
    intentId: ch.intentId,
    amount,
    currency: ch.currency,
    status: ctx.acct.refundMode,
    reason: str(params, 'reason') ?? null,
    failureReason: null,
    metadata: stringMap(params, 'metadata'),
  };
  ctx.acct.refunds.set(r.id, r);
  ctx.emit({ type: 'charge.refunded', object: renderCharge(ctx.acct, ch) });
  return ok(renderRefund(r));
}

/**
 * `GET /v1/refunds`: newest first, optionally only those of one PaymentIntent or charge, paged by
 * `limit` (1..100, default 10) and `starting_after` (a refund id of the previous page), as Stripe.
 */
export function listRefunds(ctx: EngineCtx, params: FormObject): OpResult {
  const piId = str(params, 'payment_intent');
  const chargeId = str(params, 'charge');
  const limit = int(params, 'limit', false) ?? 10;
  if (limit < 1 || limit > 100)
    throw invalidRequest('This value must be greater than or equal to 1 and less than or equal to 100.', {
      code: 'parameter_invalid_integer',
      param: 'limit',
    });
  if (piId) intent(ctx, piId);
  let all = [...ctx.acct.refunds.values()]
    .filter((r) => (piId === undefined || r.intentId === piId) && (chargeId === undefined || r.chargeId === chargeId))
    .reverse();
  const after = str(params, 'starting_after');
  if (after) {
    const at = all.findIndex((r) => r.id === after);
    if (at < 0) throw missing('refund', after, 'starting_after');
    all = all.slice(at + 1);
  }
  return ok({
    object: 'list',
    data: all.slice(0, limit).map(renderRefund),
    has_more: all.length > limit,
    url: '/v1/refunds',
  });
}

export function retrieveRefund(ctx: EngineCtx, id: string): OpResult {
  return ok(renderRefund(refund(ctx, id)));
}

/** A pending refund settles (the card network answered). */
export function settleRefund(ctx: EngineCtx, id: string, outcome: 'succeeded' | 'failed'): void {
  const r = refund(ctx, id);
  if (r.status !== 'pending') throw new Error(`stripe-standin: refund ${id} is ${r.status}, not pending`);
  r.status = outcome;
  if (outcome === 'failed') r.failureReason = 'expired_or_canceled_card';
  ctx.emit({ type: 'refund.updated', object: renderRefund(r), previousAttributes: { status: 'pending' } });
}
