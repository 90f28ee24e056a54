/**
 * Where and how long paygate talks to Stripe, read from the environment: plain values, no client,
 * so a process that only checks them never loads the `stripe` package.
 */
export const DEFAULT_STRIPE_API_URL = 'https://api.stripe.com';
/** Long enough for a slow issuer, short enough that a PAY request does not hang a shopper. */
export const DEFAULT_STRIPE_TIMEOUT_MS = 20_000;

export interface StripeEndpoint {
  host: string;
  port: number;
  protocol: 'http' | 'https';
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

/**
 * PAYGATE_STRIPE_API_URL → what the official client needs. Plain http is accepted only on
 * loopback (a local stand-in): anywhere else it would send the merchant's secret key in clear.
 */
export function parseStripeApiUrl(raw: string): StripeEndpoint {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`PAYGATE_STRIPE_API_URL is not a URL: ${raw}`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new Error('PAYGATE_STRIPE_API_URL must be an http(s) URL');
  if (url.protocol === 'http:' && !LOOPBACK.has(url.hostname)) {
    throw new Error('PAYGATE_STRIPE_API_URL may use plain http only on 127.0.0.1/localhost');
  }
  if ((url.pathname !== '/' && url.pathname !== '') || url.search || url.hash || url.username || url.password) {
    throw new Error('PAYGATE_STRIPE_API_URL must be a bare origin, like https://api.stripe.com');
  }
  const protocol = url.protocol === 'http:' ? 'http' : 'https';
  return {
    host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: url.port ? Number(url.port) : protocol === 'http' ? 80 : 443,
    protocol,
  };
}

export function stripeApiUrlFrom(env: NodeJS.ProcessEnv = process.env): string {
  const v = env.PAYGATE_STRIPE_API_URL?.trim();
  return v ? v : DEFAULT_STRIPE_API_URL;
}

/**
 * PAYGATE_STRIPE_TIMEOUT_MS → how long one call to Stripe may take before paygate treats it as
 * in flight (answered later by the webhook or the renewal run's housekeeping). Whole milliseconds
 * from 1,000 to 120,000; unset: DEFAULT_STRIPE_TIMEOUT_MS.
 */
export function stripeTimeoutFrom(env: NodeJS.ProcessEnv = process.env): number {
  const v = env.PAYGATE_STRIPE_TIMEOUT_MS?.trim();
  if (!v) return DEFAULT_STRIPE_TIMEOUT_MS;
  const n = /^\d+$/.test(v) ? Number(v) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < 1000 || n > 120_000) {
    throw new Error(
      `PAYGATE_STRIPE_TIMEOUT_MS: must be a whole number of milliseconds from 1000 to 120000, got "${v}"`,
    );
  }
  return n;
}
