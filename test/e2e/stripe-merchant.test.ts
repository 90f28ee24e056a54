import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Database } from '../../src/store/sqlite/driver.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paygate } from '../helpers/cli.js';
import { paygateAsync } from '../helpers/cli-async.js';
import { tempDir } from '../helpers/env.js';
import { answerChallenge } from '../helpers/stripe.js';
import { startStripeStandin, type StandinAccount, type StripeStandin } from '../helpers/stripe-standin/index.js';
import { client, createMerchant, raw, startServe, type Served, type TestMerchant } from '../helpers/serve.js';

/** A merchant switched to Stripe, paying through the official client against the local stand-in. */
let stripe: StripeStandin;
let srv: Served;
let db: string;
let cleanup: () => void;
let env: Record<string, string>;
let n = 0;

beforeAll(async () => {
  stripe = await startStripeStandin();
  env = { PAYGATE_STRIPE_API_URL: stripe.url };
  const t = tempDir('paygate-stripe-');
  cleanup = t.cleanup;
  db = join(t.dir, 's.db');
});
afterAll(async () => {
  await srv?.stop();
  await stripe.close();
  cleanup();
});

/** Async: the stand-in runs in this process, so a blocking spawnSync would leave the CLI unanswered. */
async function cli(args: string[], dbPath = db, extraEnv: Record<string, string> = {}) {
  const r = await paygateAsync(['--db', dbPath, ...args], { ...env, ...extraEnv });
  return { ...r, json: () => JSON.parse(r.stdout) as Record<string, unknown> };
}

async function stripeMerchant(account: StandinAccount, name = 'Stripe Shop'): Promise<TestMerchant> {
  const m = createMerchant(db, 2, name);
  const r = await cli([
    '--json',
    'merchant',
    'update',
    m.merchantId,
    '--channel',
    'stripe',
    '--stripe-secret-key',
    account.secretKey,
    '--stripe-webhook-secret',
    account.webhookSecret,
  ]);
  if (r.status !== 0) throw new Error(`merchant update failed: ${r.stderr}`);
  return m;
}

const YEAR = String(new Date().getUTCFullYear() + 2);
const card = (cardNumber: string) =>
  JSON.stringify({ holderName: 'Ada Lovelace', cardNumber, month: '12', year: YEAR, cvv: '123' });

function pay(cardNumber: string, extra: Record<string, unknown> = {}) {
  n++;
  return {
    requestId: `req-${n}-${Date.now()}`,
    relationId: `rel-${n}-${Date.now()}`,
    paymentType: 'PAY',
    payAmount: '12.34',
    currency: 'USD',
    cardInfo: card(cardNumber),
    ...extra,
  };
}

describe('switching a merchant to Stripe (merchant update)', () => {
  it('a checked key switches the merchant; show masks both keys; --channel sandbox switches back and keeps them', async () => {
    const m = createMerchant(db, 2, 'Switcher');
    const acct = stripe.createAccount();
    const r = await cli([
      '--json',
      'merchant',
      'update',
      m.merchantId,
      '--channel',
      'stripe',
      '--stripe-secret-key',
      acct.secretKey,
      '--stripe-webhook-secret',
      acct.webhookSecret,
    ]);
    expect(r.status, r.stderr).toBe(0);
    expect(stripe.requests.some((q) => q.path === '/v1/balance' && q.accountId === acct.id && q.status === 200)).toBe(
      true,
    );
    const shown = await cli(['--json', 'merchant', 'show', m.merchantId]);
    expect(shown.json()).toMatchObject({
      channel: 'stripe',
      stripeSecretKey: `sk_test_…${acct.secretKey.slice(-4)}`,
      stripeWebhookSecret: `whsec_…${acct.webhookSecret.slice(-4)}`,
    });
    expect(shown.stdout).not.toContain(acct.secretKey);
    expect(shown.stdout).not.toContain(acct.webhookSecret);
    const back = await cli(['--json', 'merchant', 'update', m.merchantId, '--channel', 'sandbox']);
    expect(back.status, back.stderr).toBe(0);
    expect(back.json()).toMatchObject({ channel: 'sandbox', stripeSecretKey: `sk_test_…${acct.secretKey.slice(-4)}` });
    // Keys kept: switching to Stripe again needs none.
    expect((await cli(['--json', 'merchant', 'update', m.merchantId, '--channel', 'stripe'])).json()).toMatchObject({
      channel: 'stripe',
    });
  });

  it("a revoked key is refused with Stripe's masked message and nothing changes; a publishable key is refused before asking Stripe", async () => {
    const m = createMerchant(db, 2, 'Refused');
    const acct = stripe.createAccount();
    acct.revokeKey();
    const before = stripe.requests.length;
    const r = await cli([
      'merchant',
      'update',
      m.merchantId,
      '--channel',
      'stripe',
      '--stripe-secret-key',
      acct.secretKey,
    ]);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(/Stripe rejected the key: .*Expired API Key/);
    expect(r.stderr).not.toContain(acct.secretKey);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(stripe.requests.length).toBe(before + 1);
    expect((await cli(['--json', 'merchant', 'show', m.merchantId])).json()).toMatchObject({ channel: 'sandbox' });
    expect((await cli(['--json', 'merchant', 'show', m.merchantId])).json()).not.toHaveProperty('stripeSecretKey');
    const pk = await cli([
      'merchant',
      'update',
      m.merchantId,
      '--channel',
      'stripe',
      '--stripe-secret-key',
      'pk_test_abcdefghijklmnop',
    ]);
    expect(pk.status).not.toBe(0);
    expect(pk.stderr).toContain('publishable key');
    expect(stripe.requests.length).toBe(before + 1);
    const none = await cli(['merchant', 'update', m.merchantId, '--channel', 'stripe']);
    expect(none.stderr).toContain('stripeSecretKey: is required');
  });

  it('vault rotate re-seals the Stripe keys: under the new key the merchant still shows them', async () => {
    const t = tempDir('paygate-stripe-rotate-');
    const rdb = join(t.dir, 'r.db');
    try {
      const m = createMerchant(rdb, 2, 'Rotated');
      const acct = stripe.createAccount();
      const up = await cli(
        [
          'merchant',
          'update',
          m.merchantId,
          '--channel',
          'stripe',
          '--stripe-secret-key',
          acct.secretKey,
          '--stripe-webhook-secret',
          acct.webhookSecret,
        ],
        rdb,
      );
      expect(up.status, up.stderr).toBe(0);
      const newKey = (JSON.parse(paygate(['--json', 'vault', 'new-key']).stdout) as { key: string }).key;
      const keyFile = join(t.dir, 'new.key');
      writeFileSync(keyFile, `${newKey}\n`, { mode: 0o600 });
      const rot = paygate(['--db', rdb, 'vault', 'rotate', '--yes', '--new-key-file', keyFile], { env });
      expect(rot.status, rot.stderr).toBe(0);
      const shown = await cli(['--json', 'merchant', 'show', m.merchantId], rdb, { PAYGATE_VAULT_KEY: newKey });
      expect(shown.status, shown.stderr).toBe(0);
      expect(shown.json()).toMatchObject({
        stripeSecretKey: `sk_test_…${acct.secretKey.slice(-4)}`,
        stripeWebhookSecret: `whsec_…${acct.webhookSecret.slice(-4)}`,
      });
    } finally {
      t.cleanup();
    }
  });
});

describe('PAY through Stripe (serve against the stand-in)', () => {
  let m: TestMerchant;
  let acct: StandinAccount;
  beforeAll(async () => {
    acct = stripe.createAccount();
    m = await stripeMerchant(acct);
    srv = await startServe({ dbPath: db, env });
  });
  const post = (body: Record<string, unknown>) => client(srv.url, m).post(`/payment/${m.apiKey}/transaction`, body);

  it('4242… succeeds: 200000, the PaymentIntent is the channel ref, keys derived from the transaction id', async () => {
    const r = await post(pay('4242424242424242'));
    expect(r.body.data).toMatchObject({ status: '200000', payAmount: '12.34' });
    const txn = r.body.data.transactionOrderId as string;
    const intents = [...acct.state.intents.values()].filter((i) => i.metadata?.paygate_transaction === txn);
    expect(intents).toHaveLength(1);
    expect(intents[0]).toMatchObject({ status: 'succeeded', amount: 1234, currency: 'usd' });
    const keys = stripe.requests
      .filter((q) => q.accountId === acct.id && q.idempotencyKey?.startsWith(`paygate:${txn}:0:`))
      .map((q) => q.idempotencyKey);
    expect(keys).toEqual([
      `paygate:${txn}:0:payment_method`,
      `paygate:${txn}:0:payment_intent`,
      `paygate:${txn}:0:confirm`,
    ]);
    const row = new Database(db, { readonly: true })
      .prepare('SELECT channel, channel_ref FROM transactions WHERE id = ?')
      .get(txn);
    expect(row).toEqual({ channel: 'stripe', channel_ref: intents[0]?.id });
  });

  it.each([
    ['4000000000000002', 'card_declined'],
    ['4000000000009995', 'insufficient_funds'],
    ['4000000000000069', 'expired_card'],
    ['4000000000000127', 'incorrect_cvc'],
  ])('%s is declined: 300000 with failReason %s', async (number, reason) => {
    const r = await post(pay(number));
    expect(r.body.data).toMatchObject({ status: '300000', failReason: reason });
  });

  it("3DS: 100040 with paygate's own page, which hands over to Stripe and returns to paygate, which finishes the payment", async () => {
    const r = await post(pay('4000002500003155'));
    expect(r.body.data.status).toBe('100040');
    const page = r.body.data.url as string;
    expect(page.startsWith(`${srv.url}/3ds/`)).toBe(true);
    const hand = await raw(page);
    expect(hand.status).toBe(303);
    const stripeUrl = hand.headers.get('location') ?? '';
    expect(stripeUrl.startsWith(`${stripe.url}/3ds/`)).toBe(true);
    // The shopper passes the challenge on Stripe's page; Stripe sends them to paygate's return URL,
    // which (no returnUrl given) shows paygate's own result page.
    const txn = r.body.data.transactionOrderId as string;
    const back = await answerChallenge(stripeUrl, 'pass');
    expect(back.url.startsWith(`${srv.url}/3ds/return/${txn}`)).toBe(true);
    expect(back.status).toBe(200);
    const done = await client(srv.url, m).get(`/payment/${m.apiKey}/transaction/query`, { transactionOrderId: txn });
    expect(done.body.data.status).toBe('200000');
    // A second return changes nothing and shows the same result.
    expect((await raw(`${srv.url}/3ds/return/${txn}`)).status).toBe(200);
  });

  it('the return URL is read from Stripe, not trusted: a failed challenge ends FAILED authentication_failed and goes to failedUrl', async () => {
    const r = await post(pay('4000002500003155', { failedUrl: 'https://shop.example.test/failed' }));
    const hand = await raw(r.body.data.url as string);
    const stripeUrl = hand.headers.get('location') ?? '';
    const intent = /\/3ds\/([^/?]+)/.exec(new URL(stripeUrl).pathname)?.[1] ?? '';
    // The shopper fails on Stripe; the return is then visited with a forged "succeeded" query.
    const fail = await fetch(
      `${stripe.url}/3ds/${intent}/complete?${new URL(stripeUrl).searchParams.toString()}&outcome=fail`,
      { redirect: 'manual' },
    );
    expect(fail.status).toBe(303);
    const txn = r.body.data.transactionOrderId as string;
    const ret = await raw(`${srv.url}/3ds/return/${txn}?payment_intent=${intent}&redirect_status=succeeded`);
    expect(ret.status).toBe(303);
    expect(ret.headers.get('location')).toContain('https://shop.example.test/failed');
    const q = await client(srv.url, m).get(`/payment/${m.apiKey}/transaction/query`, { transactionOrderId: txn });
    expect(q.body.data).toMatchObject({ status: '300000', failReason: 'authentication_failed' });
  });

  it('a timeout after the charge leaves 100000 (never FAILED on a guess) with the intent recorded', async () => {
    stripe.faults.inject({ kind: 'timeout', afterMs: 60_000 }, { match: { path: /\/confirm$/ } });
    const body = pay('4242424242424242');
    // The client waits 20 s for Stripe; this stand-in answer is held until the client gives up.
    const r = await post(body);
    expect(r.body.data.status).toBe('100000');
    const txn = r.body.data.transactionOrderId as string;
    const row = new Database(db, { readonly: true })
      .prepare('SELECT status, channel_ref FROM transactions WHERE id = ?')
      .get(txn) as { status: number; channel_ref: string };
    expect(row.status).toBe(100000);
    expect(row.channel_ref).toMatch(/^pi_/);
    // Stripe did charge: the intent succeeded; paygate did not call it failed.
    expect(acct.state.intents.get(row.channel_ref)?.status).toBe('succeeded');
  }, 40_000);

  it('a revoked key: 9999 with the reason, nothing written (the same requestId works once the key is fixed)', async () => {
    const other = stripe.createAccount();
    const m2 = await stripeMerchant(other, 'Revoked Shop');
    other.revokeKey();
    const body = pay('4242424242424242');
    const r = await client(srv.url, m2).post(`/payment/${m2.apiKey}/transaction`, body);
    expect(r.body.rtn_code).toBe('9999');
    expect(r.body.rtn_msg).toContain('refused');
    expect(r.text).not.toContain(other.secretKey);
    const count = new Database(db, { readonly: true })
      .prepare('SELECT count(*) AS c FROM transactions WHERE merchant_id = ?')
      .get(m2.merchantId) as { c: number };
    expect(count.c).toBe(0);
  });
});
