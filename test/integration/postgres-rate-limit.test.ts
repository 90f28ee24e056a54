import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openPgStore, type PgStore } from '../../src/store/postgres/client.js';
import { hitRateLimit, RATE_WINDOW_MS, sweepRateLimits } from '../../src/store/postgres/rate-limit.js';
import { enterRunning, leaveRunning, takeWindowSlot } from '../../src/store/postgres/call-window.js';
import type { CallWindow } from '../../src/channel/stripe/budget.js';
import { AccountPacer } from '../../src/channel/stripe/pacer.js';
import { pgAvailable, usePgDatabase } from '../helpers/postgres.js';

/** Rate limits counted in the database, so that they hold whichever instance answers. */
describe.skipIf(!pgAvailable())('the shared rate-limit counter on PostgreSQL', () => {
  const database = usePgDatabase();
  /** Two pools on one database: two `serve` instances behind a load balancer. */
  let a: PgStore;
  let b: PgStore;
  const T0 = Date.UTC(2026, 0, 15, 9, 0, 0);

  beforeAll(async () => {
    a = await openPgStore(database.url, { env: {}, poolSize: 10 });
    b = await openPgStore(database.url, { env: {}, poolSize: 10 });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
  });
  beforeEach(async () => {
    await a.pool.query('TRUNCATE rate_limit_windows');
  });

  it('lets exactly 60 of 100 concurrent hits through across two instances, and refuses the rest for the window', async () => {
    const hits = Array.from({ length: 100 }, (_, i) => hitRateLimit(i % 2 ? a.pool : b.pool, 'tx:key-1', 60, T0));
    const results = await Promise.all(hits);
    expect(results.filter((r) => r.ok)).toHaveLength(60);
    expect(results.filter((r) => !r.ok)).toEqual(Array.from({ length: 40 }, () => ({ ok: false, retryAfter: 60 })));
    const [row] = (
      await a.pool.query<{ n: number }>("SELECT cardinality(hits) AS n FROM rate_limit_windows WHERE key = 'tx:key-1'")
    ).rows;
    expect(row?.n).toBe(60);
  });

  it('slides: a hit counts for 60 seconds, and refused hits are not counted', async () => {
    for (let i = 0; i < 3; i++) expect(await hitRateLimit(a.pool, 'k', 3, T0 + i * 10_000)).toEqual({ ok: true });
    // Full: refused until the oldest hit (T0) leaves the window.
    expect(await hitRateLimit(b.pool, 'k', 3, T0 + 30_000)).toEqual({ ok: false, retryAfter: 30 });
    expect(await hitRateLimit(b.pool, 'k', 3, T0 + 59_500)).toEqual({ ok: false, retryAfter: 1 });
    // A hit leaves the window exactly 60 s later; the refused hits at +30 s and +59.5 s took nothing.
    expect(await hitRateLimit(a.pool, 'k', 3, T0 + RATE_WINDOW_MS)).toEqual({ ok: true });
    expect(await hitRateLimit(a.pool, 'k', 3, T0 + RATE_WINDOW_MS + 1)).toEqual({ ok: false, retryAfter: 10 });
  });

  it('keeps separate budgets per key', async () => {
    expect(await hitRateLimit(a.pool, 'refund:key-1', 1, T0)).toEqual({ ok: true });
    expect(await hitRateLimit(a.pool, 'refund:key-1', 1, T0)).toMatchObject({ ok: false });
    expect(await hitRateLimit(b.pool, 'refund:key-2', 1, T0)).toEqual({ ok: true });
  });

  it('sweeps keys with nothing left in the window, and only those', async () => {
    await hitRateLimit(a.pool, 'idle', 5, T0);
    await hitRateLimit(a.pool, 'busy', 5, T0);
    await hitRateLimit(a.pool, 'busy', 5, T0 + 30_000);
    expect(await sweepRateLimits(b.pool, T0 + RATE_WINDOW_MS + 1)).toBe(1);
    const keys = (await a.pool.query<{ key: string }>('SELECT key FROM rate_limit_windows')).rows.map((r) => r.key);
    expect(keys).toEqual(['busy']);
    // The swept key starts afresh.
    expect(await hitRateLimit(a.pool, 'idle', 1, T0 + RATE_WINDOW_MS + 2)).toEqual({ ok: true });
  });

  it('refuses a limit that is not a whole number of hits', async () => {
    await expect(hitRateLimit(a.pool, 'k', 0, T0)).rejects.toThrowError(RangeError);
  });

  it('holds at most 16 Stripe calls under way across two instances; one left lets the next in', async () => {
    const until = T0 + 25_000;
    const tries = await Promise.all(
      Array.from({ length: 20 }, (_, i) => enterRunning(i % 2 ? a.pool : b.pool, 'stripe:x:running', 16, T0, until)),
    );
    expect(tries.filter(Boolean)).toHaveLength(16);
    expect(await enterRunning(a.pool, 'stripe:x:running', 16, T0 + 5, until + 5)).toBe(false);
    // Sixteen places hold one lease end: leaving gives back exactly one of them.
    await leaveRunning(b.pool, 'stripe:x:running', until);
    expect(await enterRunning(a.pool, 'stripe:x:running', 16, T0 + 6, until + 6)).toBe(true);
    expect(await enterRunning(a.pool, 'stripe:x:running', 16, T0 + 7, until + 7)).toBe(false);
  });

  it('frees the places of a process that never gave them back once their lease ends', async () => {
    for (let i = 0; i < 2; i++) expect(await enterRunning(a.pool, 'stripe:y:running', 2, T0, T0 + 25_000)).toBe(true);
    expect(await enterRunning(b.pool, 'stripe:y:running', 2, T0 + 24_999, T0 + 49_999)).toBe(false);
    expect(await enterRunning(b.pool, 'stripe:y:running', 2, T0 + 25_000, T0 + 50_000)).toBe(true);
    // Leaving a place whose lease already ended (and was dropped) changes nothing.
    await leaveRunning(a.pool, 'stripe:y:running', T0 + 25_000);
    expect(await enterRunning(b.pool, 'stripe:y:running', 2, T0 + 25_001, T0 + 50_001)).toBe(true);
    expect(await enterRunning(b.pool, 'stripe:y:running', 2, T0 + 25_002, T0 + 50_002)).toBe(false);
  });

  it("paces two processes' Stripe calls to 16 under way in all", async () => {
    const window = (s: PgStore): CallWindow => ({
      take: (key, limit, now) => takeWindowSlot(s.pool, key, limit, now, 1000),
      enter: (key, limit, now, until) => enterRunning(s.pool, key, limit, now, until),
      leave: (key, until) => leaveRunning(s.pool, key, until),
    });
    const budget = { perSecond: 1000, background: 1000, concurrent: 16 };
    const pacers = [new AccountPacer('stripe:z', budget, window(a)), new AccountPacer('stripe:z', budget, window(b))];
    const held: Array<() => void> = [];
    const waiting = Array.from({ length: 24 }, (_, i) => pacers[i % 2]?.acquire(false).then((r) => held.push(r)));
    await new Promise((r) => setTimeout(r, 300));
    expect(held).toHaveLength(16);
    for (const release of held.splice(0, 8)) release();
    await Promise.all(waiting);
    expect(held).toHaveLength(16);
    for (const release of held) release();
  });
});
