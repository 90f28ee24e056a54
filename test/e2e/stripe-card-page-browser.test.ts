import { join } from 'node:path';
import { Database } from '../../src/store/sqlite/driver.js';
import { DateTime } from 'luxon';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, skipBrowser } from '../helpers/browser.js';
import { paygateAsync } from '../helpers/cli-async.js';
import { tempDir } from '../helpers/ctx.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { startStripeStandin, type StripeStandin } from '../helpers/stripe-standin/index.js';
import { client, createMerchant, startServe, type Served, type TestMerchant } from '../helpers/serve.js';

/**
 * Dunning for a Stripe merchant in a subscriber's browser: a trial whose card Stripe saved (a
 * SetupIntent) fails its first renewal; the RENEW_FAILED callback's card-update page takes a new
 * card that asks for 3-D Secure; paygate's 3DS page hands over to Stripe's challenge for the new
 * SetupIntent, which returns to paygate; the new card replaces the old one and the retry is paid.
 */
let stripe: StripeStandin;
let srv: Served;
let rx: Receiver;
let browser: Browser;
let m: TestMerchant;
let db: string;
let env: Record<string, string>;
let cleanup: () => void;

describe.skipIf(skipBrowser)('the card-update page of a Stripe merchant in Chromium', () => {
  beforeAll(async () => {
    stripe = await startStripeStandin();
    env = { PAYGATE_STRIPE_API_URL: stripe.url };
    const t = tempDir('paygate-stripe-card-page-');
    cleanup = t.cleanup;
    db = join(t.dir, 'c.db');
    rx = await startReceiver();
    m = createMerchant(db, 2, 'Stripe Tea Club');
    const up = await paygateAsync(
      [
        '--db',
        db,
        'merchant',
        'update',
        m.merchantId,
        '--channel',
        'stripe',
        '--stripe-secret-key',
        stripe.account.secretKey,
        '--notify-url',
        rx.url('/hooks'),
      ],
      env,
    );
    if (up.status !== 0) throw new Error(up.stderr);
    srv = await startServe({ dbPath: db, env });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await srv?.stop();
    await rx?.close();
    await stripe?.close();
    cleanup?.();
  });

  it('a new card asking for 3DS: the page hands over to Stripe\'s challenge, Complete comes back "card updated"; the next run pays the retry with it', async () => {
    const c = client(srv.url, m);
    const plan = await c.post('/subscription/plan/create', {
      planName: 'Tea Club',
      price: '12.00',
      currency: 'USD',
      cycleType: 'MONTHLY',
      cycleLength: 1,
      trialDays: 7,
    });
    const year = String(new Date().getUTCFullYear() + 2);
    // 0341: Stripe saves it (the trial's SetupIntent succeeds) but declines every charge.
    const sub = await c.post('/subscription/create', {
      requestId: 'tea-1',
      relationId: 'tea-1',
      planId: plan.body.data.planId,
      userId: 'ada',
      cardInfo: JSON.stringify({ holderName: 'Ada', cardNumber: '4000000000000341', month: '12', year, cvv: '123' }),
    });
    expect(sub.body.data, sub.text).toMatchObject({ status: '200000' });
    const subscriptionId = sub.body.data.subscriptionId as string;
    const renewEnv = { ...env, PAYGATE_PUBLIC_URL: srv.url };
    const run = await paygateAsync(
      ['--db', db, '--json', 'renew', '--at', DateTime.utc().plus({ days: 8 }).toFormat('yyyy-MM-dd HH:mm:ss')],
      renewEnv,
    );
    expect(run.status, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ failed: 1, retriesScheduled: 1 });
    const link = rx.received.find((r) => r.body.eventType === 'RENEW_FAILED')?.body.updateCardUrl as string;
    expect(link.startsWith(`${srv.url}/card/`)).toBe(true);

    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('console', (msg) => msg.type() === 'error' && errors.push(msg.text()));
    await page.goto(link);
    await page.getByLabel('Name on card').fill('Ada Lovelace');
    await page.getByLabel('Card number').fill('4000 0025 0000 3155');
    await page.getByLabel('Month (MM)').fill('12');
    await page.getByLabel('Year (YYYY)').fill(year);
    await page.getByLabel('Security code').fill('123');
    await Promise.all([
      page.waitForURL((u) => u.href.startsWith(`${stripe.url}/3ds/seti_`)),
      page.getByRole('button', { name: 'Save card' }).click(),
    ]);
    await Promise.all([
      page.waitForURL((u) => u.href.startsWith(`${srv.url}/3ds/return/`)),
      page.locator('#pass').click(),
    ]);
    expect(await page.locator('h1').textContent()).toBe('Card updated');
    expect(errors).toEqual([]);
    await page.close();

    const d = new Database(db, { readonly: true });
    const card = d
      .prepare(
        'SELECT c.last4, c.pan_enc, c.stripe_payment_method_id AS pm FROM cards c JOIN subscriptions s ON s.card_id = c.id WHERE s.id = ?',
      )
      .get(subscriptionId) as { last4: string; pan_enc: string | null; pm: string };
    d.close();
    expect(card).toMatchObject({ last4: '3155', pan_enc: null });
    // The retry became due at once; the run charges it off-session with the new PaymentMethod.
    const retry = await paygateAsync(
      [
        '--db',
        db,
        '--json',
        'renew',
        '--at',
        DateTime.utc().plus({ days: 8, minutes: 5 }).toFormat('yyyy-MM-dd HH:mm:ss'),
      ],
      renewEnv,
    );
    expect(retry.status, retry.stderr).toBe(0);
    const paid = [...stripe.account.state.intents.values()].filter((i) => i.paymentMethodId === card.pm);
    expect(paid).toEqual([expect.objectContaining({ offSession: true, status: 'succeeded', amount: 1200 })]);
  });
});
