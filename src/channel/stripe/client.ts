import Stripe from 'stripe';
import { pacedHttpClient } from './paced-http.js';
import { DEFAULT_STRIPE_API_URL, DEFAULT_STRIPE_TIMEOUT_MS, parseStripeApiUrl } from './endpoint.js';

export interface StripeClientOptions {
  secretKey: string;
  apiUrl?: string;
  timeoutMs?: number;
}

/**
 * The official client for one merchant's key. maxNetworkRetries is 0: paygate retries itself,
 * with the same Idempotency-Key, from its own records (the client still re-sends once on a
 * reset connection, with the same key, which Stripe answers idempotently). Its HTTP client keeps
 * to the account's budget and waits out 429s (paced-http.ts).
 */
export function createStripeClient(opts: StripeClientOptions): Stripe {
  const endpoint = parseStripeApiUrl(opts.apiUrl ?? DEFAULT_STRIPE_API_URL);
  return new Stripe(opts.secretKey, {
    ...endpoint,
    timeout: opts.timeoutMs ?? DEFAULT_STRIPE_TIMEOUT_MS,
    maxNetworkRetries: 0,
    httpClient: pacedHttpClient(opts.secretKey),
    telemetry: false,
    appInfo: { name: 'paygate' },
  });
}
