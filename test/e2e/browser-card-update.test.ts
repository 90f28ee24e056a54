import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, skipBrowser } from '../helpers/browser.js';
import { paygate } from '../helpers/cli.js';
import { paygateAsync } from '../helpers/cli-async.js';
import { receivedWhen, startReceiver, type Received, type Receiver } from '../helpers/receiver.js';
import { client, createMerchant, raw, startServe, type Served, type TestMerchant } from '../helpers/serve.js';
import { shopDatabase, type ShopDatabase } from '../helpers/shop-db.js';

let srv: Served;
let rx: Receiver;
let browser: Browser;
let m: TestMerchant;
let db: string;
let database: ShopDatabase;

/**
 * Dunning end to end: a real serve, a real renewal run (another process, on a test clock), the
 * RENEW_FAILED callback received by a real loopback receiver, and the subscriber's browser.
 */
describe.skipIf(skipBrowser)('the card-update page in Chromium', () => {
  beforeAll(async () => {
    database = await shopDatabase({ prefix: 'paygate-card-page-' });
    db = database.db;
    rx = await startReceiver();
    m = createMerchant(db, 2, 'Tea & Co <Shop>');
    expect(paygate(['--db', db, 'merchant', 'update', m.merchantId, '--notify-url', rx.url('/hooks')]).status).toBe(0);
    srv = await startServe({ dbPath: db });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await srv?.stop();
    await rx?.close();
    await database?.drop();
  });

  /** A renewal run as its own process; its callbacks name the serve's pages. */
  async function renewAt(at: string): Promise<Record<string, number>> {
    const r = await paygateAsync(['--db', db, '--json', 'renew', '--at', at], { PAYGATE_PUBLIC_URL: srv.url });
    expect(r.status, r.stderr).toBe(0);
    return JSON.parse(r.stdout) as Record<string, number>;
  }

  it('a declining subscription: RENEW_FAILED carries updateCardUrl; the subscriber enters 4242…; the next run charges the retry and keeps the anchor', async () => {
    const c = client(srv.url, m);
    const plan = await c.post('/subscription/plan/create', {
      planName: 'Daily tea',
      price: '4.99',
      currency: 'USD',
      cycleType: 'MONTHLY',
      cycleLength: 1,
    });
    const year = String(new Date().getUTCFullYear() + 3);
    const created = await c.post('/subscription/create', {
      requestId: 'dunning-1',
      relationId: 'dunning-1',
      planId: plan.body.data.planId,
      userId: 'ada',
      cardInfo: { holderName: 'Ada', cardNumber: '4000000000000341', month: '12', year, cvv: '123' },
    });
    const subscriptionId = created.body.data.subscriptionId as string;
    const detail = async () =>
      (await c.get('/subscription/detail', { subscriptionId })).body.data as Record<string, string | number>;
    const firstRenewal = (await detail()).nextBillingTime as string;
    const paid = (r: Received) => r.body.notifyType === 'PAYMENT' && r.body.subscriptionId === subscriptionId;
    expect(await receivedWhen(rx, paid)).toBeDefined();

    expect(await renewAt(firstRenewal)).toMatchObject({ failed: 1, retriesScheduled: 1 });
    const failed = rx.received.find((r) => r.body.eventType === 'RENEW_FAILED');
    expect(failed?.body).toMatchObject({ subscriptionId, recordStatus: 'FAILED', failReason: 'card_declined' });
    const link = failed?.body.updateCardUrl ?? '';
    expect(link.startsWith(`${srv.url}/card/`)).toBe(true);

    // The subscriber opens the link from a mail on a phone.
    const page = await browser.newPage({ viewport: { width: 360, height: 740 }, isMobile: true });
    const errors: string[] = [];
    page.on('console', (msg) => msg.type() === 'error' && errors.push(msg.text()));
    const res = await page.goto(link);
    expect(res?.status()).toBe(200);
    expect(res?.headers()['content-security-policy']).toContain("default-src 'none'");
    expect(await page.textContent('body')).toContain('Tea & Co <Shop>');
    expect(await page.textContent('body')).toContain('4.99');
    expect(await page.locator('script').count()).toBe(0);
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(360);
    for (const [id, token] of [
      ['#cc-name', 'cc-name'],
      ['#cc-number', 'cc-number'],
      ['#cc-exp-month', 'cc-exp-month'],
      ['#cc-exp-year', 'cc-exp-year'],
      ['#cc-csc', 'cc-csc'],
    ]) {
      expect(await page.getAttribute(id as string, 'autocomplete')).toBe(token);
    }
    await page.getByLabel('Name on card').fill('Ada Lovelace');
    await page.getByLabel('Card number').fill('4242 4242 4242 4242');
    await page.getByLabel('Month (MM)').fill('12');
    await page.getByLabel('Year (YYYY)').fill(year);
    await page.getByLabel('Security code').fill('123');
    await Promise.all([page.waitForLoadState('load'), page.getByRole('button', { name: 'Save card' }).click()]);
    await page.getByRole('heading', { name: 'Card updated' }).waitFor();
    expect(errors).toEqual([]);
    // Used: the link now shows the unavailable page.
    expect((await page.goto(link))?.status()).toBe(404);
    await page.close();

    expect(await renewAt(firstRenewal)).toMatchObject({ due: 1, succeeded: 1 });
    const after = await detail();
    expect(after).toMatchObject({ status: 'ACTIVE', billingCount: 2 });
    // Next billing on the original anchor calendar: one month after the first renewal date.
    const [date, time] = firstRenewal.split(' ');
    const [y, mo, d] = (date ?? '').split('-').map(Number) as [number, number, number];
    const expected = new Date(Date.UTC(y, mo, Math.min(d, new Date(Date.UTC(y, mo + 1, 0)).getUTCDate())));
    expect(after.nextBillingTime).toBe(`${expected.toISOString().slice(0, 10)} ${time}`);
    const bills = await c.get('/subscription/billing/list', { subscriptionCode: created.body.data.subscriptionCode });
    // Both runs ran at the same test-clock instant, so their records tie on creation time: compare as a set.
    const kinds = bills.body.data.records
      .map((r: { billingType: string; status: string }) => `${r.billingType}:${r.status}`)
      .sort();
    expect(kinds).toEqual(['INITIAL:SUCCESS', 'RENEW:FAILED', 'RENEW:PENDING', 'RETRY:SUCCESS']);
  }, 90_000);

  it('the card page is hardened like checkout: CSP, no script, CSRF on the form, an unknown token is the HTML unavailable page', async () => {
    const c = client(srv.url, m);
    const plan = await c.post('/subscription/plan/create', {
      planName: 'Weekly tea',
      price: '2.50',
      currency: 'USD',
      cycleType: 'WEEKLY',
      cycleLength: 1,
    });
    const year = String(new Date().getUTCFullYear() + 3);
    const created = await c.post('/subscription/create', {
      requestId: 'dunning-2',
      relationId: 'dunning-2',
      planId: plan.body.data.planId,
      userId: 'grace',
      cardInfo: { holderName: 'Grace', cardNumber: '4000000000000341', month: '12', year, cvv: '123' },
    });
    const subscriptionId = created.body.data.subscriptionId as string;
    const next = (await c.get('/subscription/detail', { subscriptionId })).body.data.nextBillingTime as string;
    await renewAt(next);
    const link =
      rx.received.find((r) => r.body.eventType === 'RENEW_FAILED' && r.body.subscriptionId === subscriptionId)?.body
        .updateCardUrl ?? '';
    const page = await raw(link);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.text).not.toContain('<script');
    const forged = await raw(link, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'cardNumber=4242424242424242&month=12&year=2030&cvv=123',
    });
    expect(forged.status).toBe(403);
    const unknown = await raw(`${srv.url}/card/not-a-token`);
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('content-type')).toContain('text/html');
    expect(unknown.text).toContain('no longer available');
  }, 60_000);
});
