import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paygateAsync } from '../helpers/cli-async.js';
import { tempDir } from '../helpers/ctx.js';
import { paygatePty } from '../helpers/pty.js';
import { createMerchant } from '../helpers/serve.js';
import { startStripeStandin, type StripeStandin } from '../helpers/stripe-standin/index.js';

/**
 * The merchant's Stripe keys given without putting them on the command line (where `ps` and the
 * shell history would show them): from stdin (`-`), from the environment, or typed at a hidden
 * prompt on a terminal. Through the real binary.
 */
let stripe: StripeStandin;
let db: string;
let cleanup: () => void;
let env: Record<string, string>;

beforeAll(async () => {
  stripe = await startStripeStandin();
  env = { PAYGATE_STRIPE_API_URL: stripe.url };
  const t = tempDir('paygate-stripe-input-');
  cleanup = t.cleanup;
  db = join(t.dir, 'i.db');
});
afterAll(async () => {
  await stripe.close();
  cleanup();
});

const cli = (args: string[], extraEnv: Record<string, string> = {}, input?: string) =>
  paygateAsync(['--db', db, ...args], { ...env, ...extraEnv }, input === undefined ? {} : { input });
const shown = async (id: string) =>
  JSON.parse((await cli(['--json', 'merchant', 'show', id])).stdout) as Record<string, unknown>;
const masked = (key: string) => `${key.startsWith('whsec_') ? 'whsec_' : 'sk_test_'}…${key.slice(-4)}`;

describe('merchant update: Stripe keys kept off the command line', () => {
  it('--stripe-secret-key - reads the key from stdin (first line), checks it with Stripe and stores it', async () => {
    const m = createMerchant(db, 2, 'Piped');
    const acct = stripe.createAccount();
    const r = await cli(
      ['--json', 'merchant', 'update', m.merchantId, '--channel', 'stripe', '--stripe-secret-key', '-'],
      {},
      `${acct.secretKey}\n`,
    );
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).not.toContain(acct.secretKey);
    expect(await shown(m.merchantId)).toMatchObject({ channel: 'stripe', stripeSecretKey: masked(acct.secretKey) });
    expect(stripe.requests.some((q) => q.path === '/v1/balance' && q.accountId === acct.id && q.status === 200)).toBe(
      true,
    );
  });

  it('--stripe-webhook-secret - reads the signing secret from stdin while the key comes from the environment', async () => {
    const m = createMerchant(db, 2, 'Mixed');
    const acct = stripe.createAccount();
    const r = await cli(
      [
        '--json',
        'merchant',
        'update',
        m.merchantId,
        '--channel',
        'stripe',
        '--stripe-secret-key',
        '--stripe-webhook-secret',
        '-',
      ],
      { PAYGATE_STRIPE_SECRET_KEY: acct.secretKey },
      acct.webhookSecret,
    );
    expect(r.status, r.stderr).toBe(0);
    expect(await shown(m.merchantId)).toMatchObject({
      stripeSecretKey: masked(acct.secretKey),
      stripeWebhookSecret: masked(acct.webhookSecret),
    });
  });

  it('the flags without a value take PAYGATE_STRIPE_SECRET_KEY and PAYGATE_STRIPE_WEBHOOK_SECRET', async () => {
    const m = createMerchant(db, 2, 'From env');
    const acct = stripe.createAccount();
    const r = await cli(
      [
        '--json',
        'merchant',
        'update',
        m.merchantId,
        '--channel',
        'stripe',
        '--stripe-secret-key',
        '--stripe-webhook-secret',
      ],
      {
        PAYGATE_STRIPE_SECRET_KEY: acct.secretKey,
        PAYGATE_STRIPE_WEBHOOK_SECRET: acct.webhookSecret,
      },
    );
    expect(r.status, r.stderr).toBe(0);
    expect(await shown(m.merchantId)).toMatchObject({
      channel: 'stripe',
      stripeSecretKey: masked(acct.secretKey),
      stripeWebhookSecret: masked(acct.webhookSecret),
    });
  });

  it('the environment is read only when the flag asks for it: another update leaves the stored key alone', async () => {
    const m = createMerchant(db, 2, 'Env ignored');
    const acct = stripe.createAccount();
    const other = stripe.createAccount();
    expect(
      (
        await cli(
          ['merchant', 'update', m.merchantId, '--channel', 'stripe', '--stripe-secret-key', '-'],
          {},
          acct.secretKey,
        )
      ).status,
    ).toBe(0);
    const r = await cli(['--json', 'merchant', 'update', m.merchantId, '--name', 'Renamed'], {
      PAYGATE_STRIPE_SECRET_KEY: other.secretKey,
    });
    expect(r.status, r.stderr).toBe(0);
    expect(await shown(m.merchantId)).toMatchObject({ name: 'Renamed', stripeSecretKey: masked(acct.secretKey) });
  });

  it('off a terminal, a flag without value and no variable is a one-line usage error naming the ways; nothing changes', async () => {
    const m = createMerchant(db, 2, 'Nothing given');
    const r = await cli(['merchant', 'update', m.merchantId, '--channel', 'stripe', '--stripe-secret-key']);
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain(
      '--stripe-secret-key needs a value: set PAYGATE_STRIPE_SECRET_KEY, give `--stripe-secret-key -`',
    );
    expect(await shown(m.merchantId)).toMatchObject({ channel: 'sandbox' });
  });

  it('nothing on stdin, or both secrets asked from stdin: usage errors, nothing changes', async () => {
    const m = createMerchant(db, 2, 'Bad stdin');
    const empty = await cli(
      ['merchant', 'update', m.merchantId, '--channel', 'stripe', '--stripe-secret-key', '-'],
      {},
      '\n',
    );
    expect(empty.status).toBe(2);
    expect(empty.stderr).toContain('nothing on stdin');
    const both = await cli(
      ['merchant', 'update', m.merchantId, '--stripe-secret-key', '-', '--stripe-webhook-secret', '-'],
      {},
      'sk_test_x\nwhsec_y\n',
    );
    expect(both.status).toBe(2);
    expect(both.stderr).toContain('only one value can be read from stdin');
    expect(await shown(m.merchantId)).toMatchObject({ channel: 'sandbox' });
  });

  it('a key piped on stdin that Stripe refuses: the usual one-line error with the masked key, nothing changed', async () => {
    const m = createMerchant(db, 2, 'Piped revoked');
    const acct = stripe.createAccount();
    acct.revokeKey();
    const r = await cli(
      ['merchant', 'update', m.merchantId, '--channel', 'stripe', '--stripe-secret-key', '-'],
      {},
      acct.secretKey,
    );
    expect(r.status).not.toBe(0);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain('Stripe rejected the key');
    expect(r.stderr).not.toContain(acct.secretKey);
    expect(await shown(m.merchantId)).toMatchObject({ channel: 'sandbox' });
  });

  it('--help says a value on the command line is visible to other users, and how to avoid it', async () => {
    const r = await cli(['merchant', 'update', '--help']);
    const text = r.stdout.replace(/\s+/g, ' ');
    expect(text).toContain('visible to other users');
    expect(text).toContain('$PAYGATE_STRIPE_SECRET_KEY');
  });
});

describe('merchant update on a terminal: the hidden prompt', () => {
  it('--stripe-secret-key without a value asks for the key; what is typed is not shown; the key is stored', async () => {
    const m = createMerchant(db, 2, 'Typed');
    const acct = stripe.createAccount();
    const s = paygatePty(
      ['--db', db, '--no-color', 'merchant', 'update', m.merchantId, '--channel', 'stripe', '--stripe-secret-key'],
      { env },
    );
    await s.waitFor('Stripe secret key');
    s.type(`${acct.secretKey}\r`);
    expect(await s.exit).toBe(0);
    expect(s.output()).not.toContain(acct.secretKey);
    expect(s.output()).not.toContain(acct.secretKey.slice(8, 20));
    expect(await shown(m.merchantId)).toMatchObject({ channel: 'stripe', stripeSecretKey: masked(acct.secretKey) });
  });

  it('--stripe-webhook-secret - on a terminal asks too, instead of waiting for end of input', async () => {
    const m = createMerchant(db, 2, 'Typed secret');
    const acct = stripe.createAccount();
    const s = paygatePty(
      [
        '--db',
        db,
        '--no-color',
        'merchant',
        'update',
        m.merchantId,
        '--channel',
        'stripe',
        '--stripe-secret-key',
        '--stripe-webhook-secret',
        '-',
      ],
      {
        env: { ...env, PAYGATE_STRIPE_SECRET_KEY: acct.secretKey },
      },
    );
    await s.waitFor('webhook signing secret');
    s.type(`${acct.webhookSecret}\r`);
    expect(await s.exit).toBe(0);
    expect(s.output()).not.toContain(acct.webhookSecret);
    expect(await shown(m.merchantId)).toMatchObject({ stripeWebhookSecret: masked(acct.webhookSecret) });
  });
});
