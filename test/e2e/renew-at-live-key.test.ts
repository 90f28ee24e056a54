import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { paygateAsync } from '../helpers/cli-async.js';
import { type ShopDatabase, shopDatabase } from '../helpers/shop-db.js';
import { type StripeStandin, startStripeStandin } from '../helpers/stripe-standin/index.js';

/*
 * SPEC §7: `renew --at` a time in the future charges early, so it is refused when a merchant with
 * records due then would be charged real money — a Stripe merchant on a live-mode key — and
 * accepted otherwise. The mode comes from the merchant's key, not from the Stripe API's URL: here
 * the stand-in is reached over plain http on loopback, as a production egress proxy may be.
 */

let stripe: StripeStandin;
let shop: ShopDatabase;
beforeEach(async () => {
  stripe = await startStripeStandin();
  shop = await shopDatabase({ prefix: 'paygate-renew-at-live-' });
});
afterEach(async () => {
  await stripe.close();
  await shop.drop();
});

const viaStandin = () => ({ PAYGATE_STRIPE_API_URL: stripe.url });

async function cli(args: string[], env: Record<string, string> = viaStandin()) {
  return paygateAsync(['--db', shop.db, '--json', ...args], env);
}

async function ok(args: string[]): Promise<Record<string, string>> {
  const r = await cli(args);
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Record<string, string>;
}

/** A merchant on Stripe with a live or test key, and one subscriber renewing every `months`. */
async function stripeMerchantWithSubscriber(mode: 'live' | 'test', months = 1): Promise<string> {
  const acct = stripe.createAccount({ live: mode === 'live' });
  const { merchantId = '' } = await ok(['merchant', 'create', '--name', `Stripe ${mode}`]);
  await ok(['merchant', 'update', merchantId, '--channel', 'stripe', '--stripe-secret-key', acct.secretKey]);
  const plan = await ok([
    'plan',
    'create',
    '--merchant',
    merchantId,
    '--name',
    'Plan',
    '--price',
    '9.99',
    '--currency',
    'USD',
    '--cycle-type',
    'MONTHLY',
    '--cycle-length',
    String(months),
  ]);
  const card = ['--card', '4242424242424242', '--exp', '12/2049', '--cvv', '123'];
  const sub = await ok(['subscribe', '--plan', plan.planId ?? '', '--user', 'u1', ...card]);
  expect(sub.status).toBe('200000'); // the first charge approved: the subscription is on
  return merchantId;
}

/** `yyyy-MM-dd HH:mm:ss` (UTC, the shop's zone) `days` from now. */
const daysAhead = (days: number): string =>
  new Date(Date.now() + days * 86_400_000).toISOString().replace('T', ' ').slice(0, 19);

const renewals = (merchantId: string) =>
  shop.rows.all<{ status: string }>(
    "SELECT status FROM billing_records WHERE merchant_id = ? AND billing_type = 'RENEW'",
    merchantId,
  );

describe('renew --at in the future and real money', () => {
  it('is refused before anything is claimed when a live-key merchant has a renewal due then, though Stripe is reached over http on loopback', async () => {
    const live = await stripeMerchantWithSubscriber('live');
    const charges = stripe.requests.filter((r) => r.path.startsWith('/v1/payment_intents')).length;

    const r = await cli(['renew', '--at', daysAhead(32)]);

    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain(live);
    expect(r.stderr).toMatch(/live Stripe key/);
    expect(r.stderr).not.toMatch(/sk_live_/);
    expect(await renewals(live)).toEqual([{ status: 'PENDING' }]);
    expect(stripe.requests.filter((r) => r.path.startsWith('/v1/payment_intents')).length).toBe(charges);
  }, 60_000);

  it('is accepted when every merchant due then is on a test-mode key, whatever the Stripe URL', async () => {
    const test = await stripeMerchantWithSubscriber('test');

    // PAYGATE_STRIPE_API_URL unset: the default https://api.stripe.com (a dry run sends nothing).
    const r = await cli(['renew', '--at', daysAhead(32), '--dry-run'], {});

    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ due: 1, records: [{ merchantId: test }] });
  }, 60_000);

  it('is not blocked by a live-key merchant with nothing due at that time', async () => {
    await stripeMerchantWithSubscriber('live', 3);
    const test = await stripeMerchantWithSubscriber('test');

    const r = await cli(['renew', '--at', daysAhead(32), '--dry-run'], {});

    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ due: 1, records: [{ merchantId: test }] });
  }, 60_000);
});
