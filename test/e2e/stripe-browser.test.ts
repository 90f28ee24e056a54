import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, skipBrowser } from '../helpers/browser.js';
import { paygateAsync } from '../helpers/cli-async.js';
import { tempDir } from '../helpers/env.js';
import { startStripeStandin, type StripeStandin } from '../helpers/stripe-standin/index.js';
import { client, createMerchant, startServe, type Served, type TestMerchant } from '../helpers/serve.js';

/**
 * A shopper's browser through a Stripe merchant's 3-D Secure: paygate's page hands over to
 * Stripe's challenge (the stand-in's), which returns to paygate, which lands on the shop.
 */
let stripe: StripeStandin;
let srv: Served;
let shop: Server;
let shopUrl: string;
let browser: Browser;
let m: TestMerchant;
let cleanup: () => void;
let n = 0;

describe.skipIf(skipBrowser)('Stripe 3-D Secure hand-over in Chromium', () => {
  beforeAll(async () => {
    stripe = await startStripeStandin();
    const env = { PAYGATE_STRIPE_API_URL: stripe.url };
    const t = tempDir('paygate-stripe-browser-');
    cleanup = t.cleanup;
    const db = join(t.dir, 'b.db');
    m = createMerchant(db, 2, 'Stripe Tea');
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
      ],
      env,
    );
    if (up.status !== 0) throw new Error(up.stderr);
    srv = await startServe({ dbPath: db, env });
    shop = createServer((req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end(`landed ${req.url}`));
    await new Promise<void>((r) => shop.listen(0, '127.0.0.1', r));
    shopUrl = `http://127.0.0.1:${(shop.address() as AddressInfo).port}`;
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await srv?.stop();
    await new Promise((r) => shop?.close(r));
    await stripe?.close();
    cleanup?.();
  });

  const urls = { returnUrl: () => `${shopUrl}/ok`, failedUrl: () => `${shopUrl}/failed` };
  const landed =
    (path: string) =>
    (u: URL): boolean =>
      u.origin === shopUrl && u.pathname === path;
  const status = async (id: string) =>
    (await client(srv.url, m).get(`/payment/${m.apiKey}/transaction/query`, { transactionOrderId: id })).body.data;

  async function transaction(fields: Record<string, unknown>) {
    n++;
    const r = await client(srv.url, m).post(`/payment/${m.apiKey}/transaction`, {
      requestId: `sb-${n}-${Date.now()}`,
      relationId: `sb-${n}-${Date.now()}`,
      payAmount: '12.50',
      currency: 'USD',
      returnUrl: urls.returnUrl(),
      failedUrl: urls.failedUrl(),
      ...fields,
    });
    return r.body.data as { url: string; transactionOrderId: string; status: string };
  }

  async function fillCard(page: Page, number: string): Promise<void> {
    await page.getByLabel('Name on card').fill('Ada Lovelace');
    await page.getByLabel('Card number').fill(number);
    await page.getByLabel('Month (MM)').fill('12');
    await page.getByLabel('Year (YYYY)').fill(String(new Date().getUTCFullYear() + 3));
    await page.getByLabel('Security code').fill('123');
  }

  it("PAY answered 100040: the 3DS url leads to Stripe's challenge; Complete lands on returnUrl and the payment is 200000", async () => {
    const card = JSON.stringify({
      holderName: 'Ada',
      cardNumber: '4000002500003155',
      month: '12',
      year: String(new Date().getUTCFullYear() + 2),
      cvv: '123',
    });
    const t = await transaction({ paymentType: 'PAY', cardInfo: card });
    expect(t.status).toBe('100040');
    const page = await browser.newPage();
    await page.goto(t.url);
    expect(page.url().startsWith(`${stripe.url}/3ds/`)).toBe(true);
    await Promise.all([page.waitForURL(landed('/ok')), page.locator('#pass').click()]);
    expect(new URL(page.url()).searchParams.get('status')).toBe('200000');
    expect(await status(t.transactionOrderId)).toMatchObject({ status: '200000' });
    await page.close();
  });

  it('CHECKOUT with a card asking for 3DS: the form hands over to Stripe; Fail lands on failedUrl, FAILED authentication_failed', async () => {
    const t = await transaction({ paymentType: 'CHECKOUT' });
    expect(t.status).toBe('100050');
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('console', (msg) => msg.type() === 'error' && errors.push(msg.text()));
    await page.goto(t.url);
    await fillCard(page, '4000 0025 0000 3155');
    await Promise.all([
      page.waitForURL((u) => u.href.startsWith(`${stripe.url}/3ds/`)),
      page.getByRole('button', { name: /^Pay/ }).click(),
    ]);
    await Promise.all([page.waitForURL(landed('/failed')), page.locator('#fail').click()]);
    expect(await status(t.transactionOrderId)).toMatchObject({ status: '300000', failReason: 'authentication_failed' });
    expect(errors).toEqual([]);
    await page.close();
  });

  it('CHECKOUT with 4242…: paid through Stripe, lands on returnUrl', async () => {
    const t = await transaction({ paymentType: 'CHECKOUT' });
    const page = await browser.newPage();
    await page.goto(t.url);
    // Real money moves through the merchant's Stripe account: no sandbox notice on its pages.
    expect(await page.locator('body').innerText()).not.toMatch(/sandbox|no real money/i);
    await fillCard(page, '4242 4242 4242 4242');
    await Promise.all([page.waitForURL(landed('/ok')), page.getByRole('button', { name: /^Pay/ }).click()]);
    expect(await status(t.transactionOrderId)).toMatchObject({ status: '200000' });
    expect(
      [...stripe.account.state.intents.values()].some(
        (i) => i.metadata.paygate_transaction === t.transactionOrderId && i.status === 'succeeded',
      ),
    ).toBe(true);
    await page.close();
  });
});
