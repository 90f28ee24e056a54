import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, skipBrowser } from '../helpers/browser.js';
import { client, createMerchant, startServe, type Served, type TestMerchant } from '../helpers/serve.js';
import { shopDatabase, type ShopDatabase } from '../helpers/shop-db.js';

let srv: Served;
let shop: Server;
let shopUrl: string;
let browser: Browser;
let m: TestMerchant;
let db: string;
let database: ShopDatabase;
let n = 0;

describe.skipIf(skipBrowser)('hosted pages in Chromium', () => {
  beforeAll(async () => {
    database = await shopDatabase({ prefix: 'paygate-browser-' });
    db = database.db;
    m = createMerchant(db, 2, 'Tea & Co <Shop>');
    srv = await startServe({ dbPath: db });
    // The merchant's site: every redirect lands here.
    shop = createServer((req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end(`landed ${req.url}`));
    await new Promise<void>((r) => shop.listen(0, '127.0.0.1', r));
    shopUrl = `http://127.0.0.1:${(shop.address() as AddressInfo).port}`;
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await srv?.stop();
    await new Promise((r) => shop?.close(r));
    await database?.drop();
  });

  async function checkout(
    extra: Record<string, unknown> = {},
  ): Promise<{ url: string; id: string; relationId: string }> {
    n++;
    const relationId = `b-${n}-${Date.now()}`;
    const r = await client(srv.url, m).post(`/payment/${m.apiKey}/transaction`, {
      requestId: `b-${n}-${Date.now()}`,
      relationId,
      paymentType: 'CHECKOUT',
      payAmount: '12.50',
      currency: 'USD',
      returnUrl: `${shopUrl}/ok`,
      failedUrl: `${shopUrl}/failed`,
      cancelUrl: `${shopUrl}/cancel`,
      items: JSON.stringify([{ name: 'Green tea', price: '12.50', num: '1' }]),
      ...extra,
    });
    expect(r.body.data.status).toBe('100050');
    return {
      url: r.body.data.url as string,
      id: r.body.data.transactionOrderId as string,
      relationId: (extra.relationId as string | undefined) ?? relationId,
    };
  }

  async function status(id: string): Promise<{ status: string; failReason?: string }> {
    const r = await client(srv.url, m).get(`/payment/${m.apiKey}/transaction/query`, { transactionOrderId: id });
    return r.body.data;
  }

  /** The shop's landing page at PATH (the redirect adds the result as query parameters). */
  const landed =
    (path: string) =>
    (u: URL): boolean =>
      u.origin === shopUrl && u.pathname === path;

  async function fillCard(page: Page, number: string): Promise<void> {
    await page.getByLabel('Name on card').fill('Ada Lovelace');
    await page.getByLabel('Card number').fill(number);
    await page.getByLabel('Month (MM)').fill('12');
    await page.getByLabel('Year (YYYY)').fill(String(new Date().getUTCFullYear() + 3));
    await page.getByLabel('Security code').fill('123');
  }

  it('pays with 4242… and lands on returnUrl; the transaction is SUCCEEDED', async () => {
    const { url, id } = await checkout();
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('console', (msg) => msg.type() === 'error' && errors.push(msg.text()));
    const res = await page.goto(url);
    expect(res?.headers()['content-security-policy']).toContain("default-src 'none'");
    await expect(page.getByText('Tea & Co <Shop>', { exact: false }).first().isVisible()).resolves.toBe(true);
    expect(await page.textContent('body')).toContain('12.50');
    expect(await page.textContent('body')).toContain('Green tea');
    expect(await page.getAttribute('#cc-number', 'autocomplete')).toBe('cc-number');
    await fillCard(page, '4242 4242 4242 4242');
    await Promise.all([page.waitForURL(landed('/ok')), page.getByRole('button', { name: /^Pay/ }).click()]);
    expect(await status(id)).toMatchObject({ status: '200000' });
    expect(errors).toEqual([]); // the CSP blocked nothing we rely on
    // The token is single use.
    const again = await page.goto(url);
    expect(again?.status()).toBe(404);
    await page.close();
  });

  it('4000000000003220 goes through the 3DS page; Complete → returnUrl, SUCCEEDED', async () => {
    const { url, id } = await checkout();
    const page = await browser.newPage();
    await page.goto(url);
    await fillCard(page, '4000000000003220');
    await Promise.all([page.waitForURL(/\/3ds\//), page.getByRole('button', { name: /^Pay/ }).click()]);
    expect(await status(id)).toMatchObject({ status: '100040' });
    await Promise.all([page.waitForURL(landed('/ok')), page.getByRole('button', { name: 'Complete' }).click()]);
    expect(await status(id)).toMatchObject({ status: '200000' });
    await page.close();
  });

  it('3DS Fail → failedUrl, FAILED with authentication_failed', async () => {
    const { url, id } = await checkout();
    const page = await browser.newPage();
    await page.goto(url);
    await fillCard(page, '4000002500003155');
    await Promise.all([page.waitForURL(/\/3ds\//), page.getByRole('button', { name: /^Pay/ }).click()]);
    await Promise.all([page.waitForURL(landed('/failed')), page.getByRole('button', { name: 'Fail' }).click()]);
    expect(await status(id)).toMatchObject({ status: '300000', failReason: 'authentication_failed' });
    await page.close();
  });

  it('a declined card shows the reason and allows a retry that succeeds', async () => {
    const { url, id } = await checkout();
    const page = await browser.newPage();
    await page.goto(url);
    await fillCard(page, '4000000000000002');
    await page.getByRole('button', { name: /^Pay/ }).click();
    await page.getByRole('alert').waitFor();
    expect(await page.getByRole('alert').textContent()).toContain('declined');
    expect(await status(id)).toMatchObject({ status: '100050' });
    await fillCard(page, '4242424242424242');
    await Promise.all([page.waitForURL(landed('/ok')), page.getByRole('button', { name: /^Pay/ }).click()]);
    expect(await status(id)).toMatchObject({ status: '200000' });
    await page.close();
  });

  it('Cancel → cancelUrl, CANCELLED', async () => {
    const { url, id } = await checkout();
    const page = await browser.newPage();
    await page.goto(url);
    await Promise.all([page.waitForURL(landed('/cancel')), page.getByRole('button', { name: 'Cancel' }).click()]);
    expect(await status(id)).toMatchObject({ status: '300020' });
    await page.close();
  });

  it('without a returnUrl the page itself shows the result', async () => {
    const { url, id } = await checkout({ returnUrl: undefined });
    const page = await browser.newPage();
    await page.goto(url);
    await fillCard(page, '5555555555554444');
    await page.getByRole('button', { name: /^Pay/ }).click();
    await page.getByText('Payment successful').waitFor();
    expect(await status(id)).toMatchObject({ status: '200000' });
    await page.close();
  });

  it('an expired token (30 minutes later) sends the user to failedUrl and the transaction is EXPIRED', async () => {
    const { url, id } = await checkout();
    // A second serve on the same database whose clock runs 31 minutes ahead (NODE_ENV=test only).
    const later = await startServe({ dbPath: db, env: { PAYGATE_TEST_CLOCK_OFFSET_MS: String(31 * 60 * 1000) } });
    try {
      const page = await browser.newPage();
      await page.goto(url.replace(srv.url, later.url));
      expect(new URL(page.url()).pathname).toBe('/failed');
      expect(await status(id)).toMatchObject({ status: '300010' });
      // Coming back later still ends at failedUrl, never at a card form.
      await page.goto(url);
      expect(new URL(page.url()).pathname).toBe('/failed');
      await page.close();
    } finally {
      await later.stop();
    }
  });

  it('an expired checkout without a failedUrl shows the expiry on our own result page', async () => {
    const { url, id } = await checkout({ failedUrl: undefined, returnUrl: undefined, cancelUrl: undefined });
    const later = await startServe({ dbPath: db, env: { PAYGATE_TEST_CLOCK_OFFSET_MS: String(31 * 60 * 1000) } });
    try {
      const page = await browser.newPage();
      await page.goto(url.replace(srv.url, later.url));
      expect(await page.textContent('body')).toContain('payment session has expired');
      expect(await status(id)).toMatchObject({ status: '300010' });
      await page.close();
    } finally {
      await later.stop();
    }
  });

  it('the paid redirect tells the shop which order came back and how (transactionOrderId, relationId, status)', async () => {
    const { url, id, relationId } = await checkout();
    const page = await browser.newPage();
    await page.goto(url);
    await fillCard(page, '4242424242424242');
    await Promise.all([page.waitForURL(landed('/ok')), page.getByRole('button', { name: /^Pay/ }).click()]);
    const q = new URL(page.url()).searchParams;
    expect(Object.fromEntries(q)).toEqual({ transactionOrderId: id, relationId, status: '200000' });
    await page.close();
  });

  it('shows the shop’s order reference, not the internal id, and marks sandbox mode', async () => {
    const { url, id, relationId } = await checkout();
    const page = await browser.newPage();
    await page.goto(url);
    const text = (await page.textContent('body')) ?? '';
    expect(text).toContain(`Order ${relationId}`);
    expect(text).not.toContain(id);
    expect(await page.getByRole('note').textContent()).toMatch(/Sandbox.*no real money/);
    await page.close();
  });

  it('keeps the holder name after a decline, so only the card is typed again', async () => {
    const { url } = await checkout();
    const page = await browser.newPage();
    await page.goto(url);
    await fillCard(page, '4000000000000002');
    await page.getByRole('button', { name: /^Pay/ }).click();
    await page.getByRole('alert').waitFor();
    expect(await page.getByLabel('Name on card').inputValue()).toBe('Ada Lovelace');
    expect(await page.getByLabel('Card number').inputValue()).toBe('');
    await page.close();
  });

  it('fits a 320 px wide phone without sideways scrolling, long order references included', async () => {
    const { url } = await checkout({
      relationId: `order-${'x'.repeat(120)}-${Date.now()}`,
      payAmount: '1234567890.00',
    });
    const page = await browser.newPage({ viewport: { width: 320, height: 640 } });
    await page.goto(url);
    // A string: the test project has no DOM types.
    const widths = (await page.evaluate(
      '({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth })',
    )) as { scroll: number; client: number };
    expect(widths.scroll).toBeLessThanOrEqual(widths.client);
    expect(widths.client).toBe(320);
    await page.close();
  });
});
