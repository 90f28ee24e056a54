import { createHmac } from 'node:crypto';
import type { EventType } from './engine.js';
import { fixture, type StripeJson } from './fixtures.js';
import { stripeId } from './state.js';

/** Stripe's signature: `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`. */
export function signatureHeader(payload: string, secret: string, timestampSeconds: number): string {
  const v1 = createHmac('sha256', secret).update(`${timestampSeconds}.${payload}`, 'utf8').digest('hex');
  return `t=${timestampSeconds},v1=${v1}`;
}

export function buildEvent(opts: {
  type: EventType;
  object: StripeJson;
  previousAttributes?: StripeJson | undefined;
  createdMs: number;
  apiVersion: string | null;
  requestId: string | null;
  idempotencyKey: string | null;
}): StripeJson {
  const e = fixture('event');
  Object.assign(e, {
    id: stripeId('evt'),
    created: Math.floor(opts.createdMs / 1000),
    type: opts.type,
    api_version: opts.apiVersion,
    data: opts.previousAttributes
      ? { object: opts.object, previous_attributes: opts.previousAttributes }
      : { object: opts.object },
    request: { id: opts.requestId, idempotency_key: opts.idempotencyKey },
    pending_webhooks: 1,
    livemode: false,
  });
  return e;
}

/** One POST of an event to the account's endpoint, as the endpoint answered it. */
export interface Delivery {
  eventId: string;
  type: string;
  url: string;
  /** The exact bytes sent: what constructEvent must be given. */
  payload: string;
  signature: string;
  status: number | null;
  error: string | null;
  at: number;
}

export async function deliver(url: string, secret: string, event: StripeJson, nowMs: number): Promise<Delivery> {
  // Stripe sends the event pretty-printed; the signature covers these exact bytes.
  const payload = JSON.stringify(event, null, 2);
  const signature = signatureHeader(payload, secret, Math.floor(nowMs / 1000));
  const d: Delivery = {
    eventId: String(event.id),
    type: String(event.type),
    url,
    payload,
    signature,
    status: null,
    error: null,
    at: nowMs,
  };
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json; charset=utf-8',
        'stripe-signature': signature,
        'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)',
      },
      body: payload,
      signal: AbortSignal.timeout(10_000),
    });
    await res.arrayBuffer();
    d.status = res.status;
  } catch (err) {
    d.error = err instanceof Error ? err.message : String(err);
  }
  return d;
}
