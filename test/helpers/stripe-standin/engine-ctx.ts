import { invalidRequest, StandinError } from './errors.js';
import type { Decline } from './cards.js';
import type { StripeJson } from './fixtures.js';
import { str, type FormObject } from './form.js';
import type { AccountState } from './state.js';

/** The event types the stand-in emits: those paygate subscribes to, and payment_intent.canceled / setup_intent.canceled. */
export type EventType =
  | 'payment_intent.succeeded'
  | 'payment_intent.payment_failed'
  | 'payment_intent.canceled'
  | 'charge.refunded'
  | 'refund.updated'
  | 'setup_intent.succeeded'
  | 'setup_intent.setup_failed'
  | 'setup_intent.canceled';

export interface Emitted {
  type: EventType;
  object: StripeJson;
  previousAttributes?: StripeJson;
}

export interface EngineCtx {
  acct: AccountState;
  now: number;
  baseUrl: string;
  /** A 'processing' fault: the next successful card charge stays processing until settled. */
  processing: boolean;
  emit: (e: Emitted) => void;
}

export interface OpResult {
  status: number;
  body: StripeJson;
}

export const ok = (body: StripeJson): OpResult => ({ status: 200, body });

export function int(params: FormObject, key: string, required: boolean): number | undefined {
  const v = str(params, key);
  if (v === undefined) {
    if (required) throw invalidRequest(`Missing required param: ${key}.`, { code: 'parameter_missing', param: key });
    return undefined;
  }
  if (!/^-?\d+$/.test(v))
    throw invalidRequest(`Invalid integer: ${v}`, { code: 'parameter_invalid_integer', param: key });
  return Number(v);
}

export const bool = (params: FormObject, key: string) => str(params, key) === 'true';

export function cardError(decline: Decline, extra: StripeJson, param?: string): StandinError {
  return new StandinError(402, {
    type: 'card_error',
    code: decline.code,
    decline_code: decline.declineCode,
    message: decline.message,
    doc_url: `https://stripe.com/docs/error-codes/${decline.code.replaceAll('_', '-')}`,
    param,
    ...extra,
  });
}
