import { AsyncLocalStorage } from 'node:async_hooks';

/** What one caller's Stripe calls came to: a renewal run's counts for `renew --json`. */
export interface CallTally {
  /** HTTP calls sent to Stripe, re-sent ones included. */
  calls: number;
  /** Of them, answered 429. */
  rateLimited: number;
}

/**
 * Who is calling Stripe, carried through the async calls below it rather than through every
 * channel method: a renewal run is background work (it keeps off the customer-present share of
 * the budget) and may wait out 429s until its lease ends; a shopper's request may not.
 */
export interface CallScope {
  background: boolean;
  /** Epoch ms (wall clock): a 429 is retried until then, then answered as in flight. */
  retryUntil: number;
  tally?: CallTally;
}

/** A shopper is waiting: 429s are retried for a few seconds, then the payment stays in flight. */
export const CUSTOMER_PRESENT_RETRY_MS = 8000;

const scope = new AsyncLocalStorage<CallScope>();

export function currentCallScope(now: number = Date.now()): CallScope {
  return scope.getStore() ?? { background: false, retryUntil: now + CUSTOMER_PRESENT_RETRY_MS };
}

/** Runs `fn` with every Stripe call under it made as `s` says. */
export function withCallScope<T>(s: CallScope, fn: () => Promise<T>): Promise<T> {
  return scope.run(s, fn);
}

/** Every Stripe call this process made, by caller, for its metrics. */
export const processTally: Record<'background' | 'customerPresent', CallTally> = {
  background: { calls: 0, rateLimited: 0 },
  customerPresent: { calls: 0, rateLimited: 0 },
};

export function countCall(s: CallScope, rateLimited: boolean): void {
  const mine = s.background ? processTally.background : processTally.customerPresent;
  for (const t of s.tally ? [mine, s.tally] : [mine]) {
    t.calls++;
    if (rateLimited) t.rateLimited++;
  }
}
