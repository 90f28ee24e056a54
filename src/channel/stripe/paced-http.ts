import Stripe from 'stripe';
import { countCall, currentCallScope } from '../call-scope.js';
import { pacerFor } from './pacer.js';

type HttpClient = Stripe.HttpClient;
type HttpResponse = Stripe.HttpClientResponse;

/** Exponential back-off after a 429 that names no wait: 0.5 s, 1 s, 2 s … at most 8 s, with jitter. */
export function backoffMs(attempt: number, random: () => number = Math.random): number {
  const base = Math.min(500 * 2 ** attempt, 8000);
  return Math.round(base * (0.5 + 0.5 * random()));
}

/** Retry-After in seconds or as an HTTP date → milliseconds from now; undefined when absent or unreadable. */
export function retryAfterMs(value: string | string[] | undefined, now: number = Date.now()): number | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  if (!v) return undefined;
  if (/^\d+(\.\d+)?$/.test(v.trim())) return Math.round(Number(v) * 1000);
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

const header = (res: HttpResponse, name: string): string | undefined => {
  const v = res.getHeaders()[name];
  return Array.isArray(v) ? v[0] : v === undefined ? undefined : String(v);
};

/** A 429's body is never read: drain it so the connection goes back to the agent. */
function discard(res: HttpResponse): void {
  if (res.dispose) {
    res.dispose();
    return;
  }
  const raw = res.getRawResponse();
  if (raw && typeof raw === 'object' && 'resume' in raw && typeof raw.resume === 'function') raw.resume();
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * The official client's HTTP client, for one account: every request waits for the account's
 * budget, and a 429 is sent again (same request, so the same Idempotency-Key) after the wait
 * Stripe's answer asks for (Retry-After), else a back-off, until the caller's scope says to stop
 * (a renewal run: its lease; a shopper: a few seconds). A 429 with `Stripe-Should-Retry: false`
 * is answered at once. Anything else (timeouts, 5xx, network errors) goes back to the caller
 * unchanged: those may have run, and paygate's own records settle them.
 */
export function pacedHttpClient(secretKey: string, inner: HttpClient = Stripe.createNodeHttpClient()): HttpClient {
  const pacer = pacerFor(secretKey);
  return {
    getClientName: () => inner.getClientName(),
    async makeRequest(host, port, path, method, headers, requestData, protocol, timeout) {
      const scope = currentCallScope();
      for (let attempt = 0; ; attempt++) {
        const release = await pacer.acquire(scope.background);
        let res: HttpResponse;
        try {
          res = await inner.makeRequest(host, port, path, method, headers, requestData, protocol, timeout);
        } finally {
          release();
        }
        const limited = res.getStatusCode() === 429;
        countCall(scope, limited);
        if (!limited) return res;
        const wait = retryAfterMs(header(res, 'retry-after')) ?? backoffMs(attempt);
        if (header(res, 'stripe-should-retry') === 'false' || Date.now() + wait > scope.retryUntil) return res;
        discard(res);
        await sleep(wait);
      }
    },
  };
}
