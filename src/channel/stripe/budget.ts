/**
 * How fast paygate may call one Stripe account (SPEC §13 "Within Stripe's limits"): plain values
 * read from the environment, so a process that only checks them never loads the `stripe` package.
 */

/** Under Stripe's documented 100 (live) and 25 (test mode) operations per second per account. */
export const DEFAULT_LIVE_RPS = 80;
export const DEFAULT_TEST_RPS = 20;
/** Calls to one account under way at once. */
export const MAX_CONCURRENT_CALLS = 16;
/** Renewal runs may use this share of the budget; the rest is kept for customer-present calls. */
export const BACKGROUND_SHARE = 0.8;
export const CALL_WINDOW_MS = 1000;

/** The budget of one account: calls per second for customer-present and for background callers. */
export interface CallBudget {
  perSecond: number;
  background: number;
  concurrent: number;
}

const isLiveKey = (key: string): boolean => /^(sk|rk)_live_/.test(key);

/**
 * PAYGATE_STRIPE_MAX_RPS (a whole number from 1 to 10000) applies to every Stripe account; unset,
 * 80 for a live key and 20 for a test key.
 */
export function stripeBudgetFrom(secretKey: string, env: NodeJS.ProcessEnv = process.env): CallBudget {
  const perSecond = stripeMaxRpsFrom(env) ?? (isLiveKey(secretKey) ? DEFAULT_LIVE_RPS : DEFAULT_TEST_RPS);
  return {
    perSecond,
    background: Math.max(1, Math.floor(perSecond * BACKGROUND_SHARE)),
    concurrent: MAX_CONCURRENT_CALLS,
  };
}

/** The variable alone: undefined when unset; a bad value is an error naming it. */
export function stripeMaxRpsFrom(env: NodeJS.ProcessEnv = process.env): number | undefined {
  const v = env.PAYGATE_STRIPE_MAX_RPS?.trim();
  if (!v) return undefined;
  const n = /^\d+$/.test(v) ? Number(v) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < 1 || n > 10_000) {
    throw new Error(`PAYGATE_STRIPE_MAX_RPS: must be a whole number of calls per second from 1 to 10000, got "${v}"`);
  }
  return n;
}

/**
 * Where an account's calls are counted: `take` answers 0 when a slot of `limit` per window was
 * taken now, else the milliseconds to wait before asking again.
 */
export interface CallWindow {
  take(key: string, limit: number, now: number): Promise<number>;
  /**
   * Calls under way counted for every process (PostgreSQL): take one of `limit` places on `key`,
   * held until it is left or until `until` (epoch ms: a process that dies frees its places then).
   * Absent where one process counts its own (SQLite): the pacer's count is then the whole count.
   */
  enter?(key: string, limit: number, now: number, until: number): Promise<boolean>;
  leave?(key: string, until: number): Promise<void>;
}

/**
 * How long a place among the calls under way is held at most: the Stripe client's timeout
 * (DEFAULT_STRIPE_TIMEOUT_MS) and a margin, so a call that runs to its timeout keeps its place.
 */
export const RUNNING_LEASE_MS = 25_000;

/** One process's count (SQLite: one process charges at a time per database, as `serve` is one). */
export function memoryCallWindow(windowMs: number = CALL_WINDOW_MS): CallWindow {
  const hits = new Map<string, number[]>();
  return {
    take(key, limit, now) {
      const kept = (hits.get(key) ?? []).filter((h) => h > now - windowMs);
      hits.set(key, kept);
      if (kept.length < limit) {
        kept.push(now);
        return Promise.resolve(0);
      }
      const freeing = kept[kept.length - limit] ?? now;
      return Promise.resolve(Math.max(1, freeing + windowMs - now));
    },
  };
}
