import Stripe from 'stripe';
import { DEFAULT_STRIPE_API_URL, DEFAULT_STRIPE_TIMEOUT_MS, parseStripeApiUrl } from './endpoint.js';

export interface StripeClientOptions {
  secretKey: string;
  apiUrl?: string;
  timeoutMs?: number;
}

/**
 * The official client for one merchant's key. maxNetworkRetries is 0: paygate retries itself,
 * with the same Idempotency-Key, from its own records (the client still re-sends once on a
 * reset connection, with the same key, which Stripe answers idempotently).
 */
export function createStripeClient(opts: StripeClientOptions): Stripe {
  const endpoint = parseStripeApiUrl(opts.apiUrl ?? DEFAULT_STRIPE_API_URL);
  return new Stripe(opts.secretKey, {
    ...endpoint,
    timeout: opts.timeoutMs ?? DEFAULT_STRIPE_TIMEOUT_MS,
    maxNetworkRetries: 0,
    telemetry: false,
    appInfo: { name: 'paygate' },
  });
}
