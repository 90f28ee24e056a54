import { describe, expect, it } from 'vitest';
import { memoryCallWindow, stripeBudgetFrom } from '../../src/channel/stripe/budget.js';
import { backoffMs, retryAfterMs } from '../../src/channel/stripe/paced-http.js';
import { AccountPacer } from '../../src/channel/stripe/pacer.js';

describe('the budget of a Stripe account (PAYGATE_STRIPE_MAX_RPS)', () => {
  it('is 80 calls/s for a live key and 20 for a test key, renewal runs using four fifths, 16 at once', () => {
    expect(stripeBudgetFrom('sk_live_abc', {})).toEqual({ perSecond: 80, background: 64, concurrent: 16 });
    expect(stripeBudgetFrom('rk_live_abc', {})).toMatchObject({ perSecond: 80 });
    expect(stripeBudgetFrom('sk_test_abc', {})).toEqual({ perSecond: 20, background: 16, concurrent: 16 });
  });

  it('PAYGATE_STRIPE_MAX_RPS sets it for every account; a bad value names the variable', () => {
    expect(stripeBudgetFrom('sk_live_abc', { PAYGATE_STRIPE_MAX_RPS: '400' })).toMatchObject({
      perSecond: 400,
      background: 320,
    });
    expect(stripeBudgetFrom('sk_test_abc', { PAYGATE_STRIPE_MAX_RPS: '1' })).toMatchObject({ background: 1 });
    for (const bad of ['0', '-3', '2.5', 'fast', '10001'])
      expect(() => stripeBudgetFrom('sk_test_abc', { PAYGATE_STRIPE_MAX_RPS: bad })).toThrow(/PAYGATE_STRIPE_MAX_RPS/);
  });
});

describe('the call window', () => {
  it('lets `limit` calls through per second and says how long until the next', async () => {
    const w = memoryCallWindow(1000);
    for (let i = 0; i < 3; i++) expect(await w.take('a', 3, 1000 + i * 10)).toBe(0);
    expect(await w.take('a', 3, 1100)).toBe(900);
    // A smaller limit (a renewal run's share) waits until enough calls have left the window.
    expect(await w.take('a', 2, 1100)).toBe(910);
    expect(await w.take('b', 3, 1100)).toBe(0);
    expect(await w.take('a', 3, 2001)).toBe(0);
  });
});

describe('a 429 answer', () => {
  it('waits what Retry-After asks (seconds or a date), else backs off exponentially with jitter up to 8 s', () => {
    expect(retryAfterMs('2')).toBe(2000);
    expect(retryAfterMs(new Date(10_000).toUTCString(), 7000)).toBe(3000);
    expect(retryAfterMs(undefined)).toBeUndefined();
    expect(retryAfterMs('soon')).toBeUndefined();
    expect(backoffMs(0, () => 1)).toBe(500);
    expect(backoffMs(0, () => 0)).toBe(250);
    expect(backoffMs(3, () => 1)).toBe(4000);
    expect(backoffMs(10, () => 1)).toBe(8000);
  });
});

describe('the pacer', () => {
  it('grants customer-present calls before background ones waiting for the same account', async () => {
    const w = memoryCallWindow(200);
    const p = new AccountPacer('k', { perSecond: 2, background: 1, concurrent: 16 }, w);
    const order: string[] = [];
    const first = await p.acquire(true);
    first();
    const waiting = [
      p.acquire(true).then((r) => {
        order.push('background');
        r();
      }),
      p.acquire(false).then((r) => {
        order.push('present');
        r();
      }),
    ];
    await Promise.all(waiting);
    expect(order).toEqual(['present', 'background']);
  });

  it('keeps at most `concurrent` calls under way', async () => {
    const p = new AccountPacer('k', { perSecond: 100, background: 100, concurrent: 2 }, memoryCallWindow());
    const a = await p.acquire(false);
    await p.acquire(false);
    let third = false;
    const c = p.acquire(false).then(() => {
      third = true;
    });
    await new Promise((r) => setTimeout(r, 20));
    expect(third).toBe(false);
    a();
    await c;
    expect(third).toBe(true);
  });

  it('keeps at most `concurrent` calls under way across processes sharing one count', async () => {
    // The database's count as two processes see it: one list of lease ends.
    const running: number[] = [];
    const shared = {
      ...memoryCallWindow(),
      enter: async (_key: string, limit: number, now: number, until: number) => {
        const live = running.filter((u) => u > now);
        running.splice(0, running.length, ...live);
        if (live.length >= limit) return false;
        running.push(until);
        return true;
      },
      leave: async (_key: string, until: number) => {
        const i = running.indexOf(until);
        if (i >= 0) running.splice(i, 1);
      },
    };
    const budget = { perSecond: 100, background: 100, concurrent: 2 };
    const [p, q] = [new AccountPacer('k', budget, shared), new AccountPacer('k', budget, shared)];
    const a = await p.acquire(false);
    await q.acquire(false);
    let third = false;
    const c = q.acquire(false).then(() => {
      third = true;
    });
    await new Promise((r) => setTimeout(r, 60));
    expect(third).toBe(false);
    a();
    await c;
    expect(third).toBe(true);
    expect(running).toHaveLength(2);
  });
});
