import { z } from 'zod';

/**
 * The parts of a Stripe event paygate reads, checked before anything reads them. A signed event
 * proves who sent it, not its shape: one that lacks (or mistypes) what its type needs is refused
 * instead of reaching the store as `undefined` or an object where an id belongs.
 * Unknown fields are kept (loose objects): Stripe adds fields without notice.
 */

/** Stripe ids are letters, digits and underscores (`pi_…`, `re_…`, `ch_…`). */
const stripeId = z.string().regex(/^[A-Za-z0-9_]{1,255}$/, 'is not a Stripe id');
const expandable = z.union([stripeId, z.looseObject({ id: stripeId })]).nullish();
const text = z.string().nullish();
const nextAction = z.looseObject({ redirect_to_url: z.looseObject({ url: text }).nullish() }).nullish();
const lastError = z.looseObject({ code: text, decline_code: text }).nullish();

const paymentIntent = z.looseObject({
  id: stripeId,
  status: z.string(),
  next_action: nextAction,
  last_payment_error: lastError,
  cancellation_reason: text,
});

const setupIntent = z.looseObject({
  id: stripeId,
  status: z.string(),
  next_action: nextAction,
  last_setup_error: lastError,
  cancellation_reason: text,
});

const refund = z.looseObject({
  id: stripeId,
  status: text,
  payment_intent: expandable,
  failure_reason: text,
  metadata: z.record(z.string(), z.string()).nullish(),
});

const charge = z.looseObject({
  id: stripeId,
  payment_intent: expandable,
  amount_refunded: z.number().int().nonnegative(),
  refunds: z.looseObject({ data: z.array(refund).optional() }).nullish(),
});

const envelope = z.looseObject({
  id: stripeId,
  type: z.string().min(1).max(255),
  created: z.number().int().nonnegative(),
  data: z.unknown(),
});

/**
 * The checked event. `object` is `data.object`, checked for every field paygate reads of an event
 * of this type (one of EVENT_OBJECTS); null for types paygate does not settle.
 */
export interface CheckedEvent {
  id: string;
  type: string;
  created: number;
  object: unknown;
}

/** The event types paygate settles, and the shape of the object each carries. */
const EVENT_OBJECTS: Record<string, z.ZodType> = {
  'payment_intent.succeeded': paymentIntent,
  'payment_intent.payment_failed': paymentIntent,
  'setup_intent.succeeded': setupIntent,
  'setup_intent.setup_failed': setupIntent,
  'refund.updated': refund,
  'charge.refunded': charge,
};

function firstIssue(where: string, e: z.ZodError): string {
  const i = e.issues[0];
  const path = [where, ...(i?.path ?? []).map(String)].filter(Boolean).join('.');
  return `${path || 'event'}: ${i?.message ?? 'invalid'}`;
}

/** The event checked for what paygate reads of it, or why it is not an event paygate can read. */
export function checkEvent(raw: unknown): { ok: true; event: CheckedEvent } | { ok: false; reason: string } {
  const env = envelope.safeParse(raw);
  if (!env.success) return { ok: false, reason: `malformed event: ${firstIssue('', env.error)}` };
  const { id, type, created, data } = env.data;
  const schema = EVENT_OBJECTS[type];
  // Events paygate does not settle are acknowledged whatever their object holds.
  if (!schema) return { ok: true, event: { id, type, created, object: null } };
  const object = z.looseObject({ object: schema }).safeParse(data);
  if (!object.success) return { ok: false, reason: `malformed ${type} event: ${firstIssue('data', object.error)}` };
  // Checked for every field the mapping reads; the rest is Stripe's and passed through untouched.
  return { ok: true, event: { id, type, created, object: object.data.object } };
}
