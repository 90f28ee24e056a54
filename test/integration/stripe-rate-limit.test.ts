import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { withCallScope } from '../../src/channel/call-scope.js';
import { createStripeClient } from '../../src/channel/stripe/index.js';
import { AccountRateLimit } from '../helpers/stripe-standin/rate-limit.js';
import { startStripeStandin, type StripeStandin } from '../helpers/stripe-standin/index.js';

/**
 * Stripe's rate limiter as the stand-in plays it (25 operations per second per account in test
 * mode, 429 with Stripe's body and headers) and paygate's client under it: a 429 is sent again,
 * the same request with the same Idempotency-Key, after the wait Stripe asks for.
 */
let s: StripeStandin;
beforeEach(async () => {
  s = await startStripeStandin();
});
afterEach(async () => {
  await s.close();
});

const balance = (key = s.account.secretKey) =>
  fetch(`${s.url}/v1/balance`, { headers: { authorization: `Bearer ${key}` } });

describe("the stand-in's rate limit", () => {
  it('counts each second on its own and refuses past the limit; test mode by default', () => {
    const l = new AccountRateLimit();
    expect(l.limit).toBe(25);
    for (let i = 0; i < 25; i++) expect(l.admit(5000 + i)).toBe(true);
    expect(l.admit(5999)).toBe(false);
    expect(l.admit(6000)).toBe(true);
    expect(l.perSecond()).toEqual([
      { second: 5, calls: 25, limited: 1 },
      { second: 6, calls: 1, limited: 0 },
    ]);
    expect(l.totals()).toEqual({ calls: 26, limited: 1, busiestSecond: 25 });
  });

  it('answers as Stripe: 429, invalid_request_error with code rate_limit, Stripe-Rate-Limited-Reason, no Retry-After', async () => {
    s.account.setRateLimit(0);
    const r = await balance();
    expect(r.status).toBe(429);
    expect(r.headers.get('stripe-rate-limited-reason')).toBe('global-rate');
    expect(r.headers.get('retry-after')).toBeNull();
    expect(((await r.json()) as { error: unknown }).error).toMatchObject({
      type: 'invalid_request_error',
      code: 'rate_limit',
    });
    expect(s.account.traffic()).toMatchObject({ calls: 0, limited: 1 });
    expect(s.requests.at(-1)?.rateLimited).toBe(true);
  });

  it('is per account: another account is not refused', async () => {
    const other = s.createAccount();
    s.account.setRateLimit(0);
    expect((await balance()).status).toBe(429);
    expect((await balance(other.secretKey)).status).toBe(200);
  });
});

describe("paygate's client under Stripe's limit", () => {
  const pmParams = {
    type: 'card' as const,
    card: { number: '4242424242424242', exp_month: 12, exp_year: 2099, cvc: '123' },
  };

  it('waits out 429s and sends the same request again, with the same Idempotency-Key: one PaymentMethod', async () => {
    const client = createStripeClient({ secretKey: s.account.secretKey, apiUrl: s.url });
    s.faults.inject({ kind: 'rate_limit' }, { match: { path: '/v1/payment_methods' }, times: 2 });
    const pm = await client.paymentMethods.create(pmParams, { idempotencyKey: 'paygate:txn_x:0:payment_method' });
    const sent = s.requests.filter((q) => q.path === '/v1/payment_methods');
    expect(sent.map((q) => q.status)).toEqual([429, 429, 200]);
    expect(new Set(sent.map((q) => q.idempotencyKey))).toEqual(new Set(['paygate:txn_x:0:payment_method']));
    expect([...s.account.state.paymentMethods.keys()]).toEqual([pm.id]);
  });

  it('waits what Retry-After asks before sending again', async () => {
    const client = createStripeClient({ secretKey: s.account.secretKey, apiUrl: s.url });
    s.faults.inject({ kind: 'rate_limit', retryAfter: 1 }, { match: { path: '/v1/balance' } });
    await client.balance.retrieve();
    const [first, second] = s.requests.filter((q) => q.path === '/v1/balance');
    expect((second?.at ?? 0) - (first?.at ?? 0)).toBeGreaterThanOrEqual(1000);
  });

  it('a 429 with Stripe-Should-Retry: false is the answer at once', async () => {
    const client = createStripeClient({ secretKey: s.account.secretKey, apiUrl: s.url });
    s.faults.inject({ kind: 'rate_limit', shouldRetry: false }, { match: { path: '/v1/balance' } });
    await expect(client.balance.retrieve()).rejects.toMatchObject({ statusCode: 429 });
    expect(s.requests.filter((q) => q.path === '/v1/balance')).toHaveLength(1);
  });

  it("stops waiting when the caller's time is up: the 429 is the answer", async () => {
    const client = createStripeClient({ secretKey: s.account.secretKey, apiUrl: s.url });
    s.account.setRateLimit(0);
    const call = withCallScope({ background: true, retryUntil: Date.now() + 1500 }, () => client.balance.retrieve());
    await expect(call).rejects.toMatchObject({ statusCode: 429 });
    expect(s.account.traffic().limited).toBeGreaterThan(1);
  });
});
