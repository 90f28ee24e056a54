import type { Ctx } from '../ctx.js';
import type { MerchantRow } from '../store/store.js';

/**
 * API authentication needs the merchant's row on every request; it is served from memory for at
 * most this long after it was read. A change made by another process (`paygate merchant update
 * --disable`, rotate-secret, rotate-key, another `serve`) so takes effect on every instance within
 * half a second; this process's own changes at once (forgetMerchants). Measured by the process's
 * monotonic clock, not the service clock: this bounds a cache's age, it decides no business time.
 */
export const MERCHANT_FRESH_MS = 500;

/** Beyond this many rows remembered, the cache starts over (unknown API keys are never kept). */
const MAX_ENTRIES = 10_000;

interface Entry {
  row: Promise<MerchantRow | undefined>;
  until: number;
}

class MerchantCache {
  readonly entries = new Map<string, Entry>();

  get(key: string, read: () => Promise<MerchantRow | undefined>): Promise<MerchantRow | undefined> {
    const now = performance.now();
    const hit = this.entries.get(key);
    if (hit && hit.until > now) return hit.row;
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
    // Concurrent requests for a row not in memory share one read.
    const row = read();
    const entry = { row, until: now + MERCHANT_FRESH_MS };
    this.entries.set(key, entry);
    const drop = () => {
      if (this.entries.get(key) === entry) this.entries.delete(key);
    };
    row.then((r) => (r ? undefined : drop()), drop);
    return row;
  }
}

const caches = new WeakMap<object, MerchantCache>();

function cacheOf(ctx: Ctx): MerchantCache {
  let c = caches.get(ctx.store);
  if (!c) {
    c = new MerchantCache();
    caches.set(ctx.store, c);
  }
  return c;
}

/** The merchant with this id, at most MERCHANT_FRESH_MS old. */
export function cachedMerchant(ctx: Ctx, id: string): Promise<MerchantRow | undefined> {
  return cacheOf(ctx).get(`id:${id}`, () => ctx.store.getMerchant(id));
}

/** The merchant holding this API key (current or previous), at most MERCHANT_FRESH_MS old. */
export function cachedMerchantByApiKey(ctx: Ctx, apiKey: string): Promise<MerchantRow | undefined> {
  return cacheOf(ctx).get(`key:${apiKey}`, () => ctx.store.getMerchantByApiKey(apiKey));
}

/** After this process changed a merchant: every request from now on reads it again. */
export function forgetMerchants(ctx: Ctx): void {
  cacheOf(ctx).entries.clear();
}
