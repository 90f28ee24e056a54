import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, skipBrowser } from '../helpers/browser.js';
import { requireMerchant } from '../../src/services/merchants.js';
import { refundTransaction } from '../../src/services/refund.js';
import { runRenewal } from '../../src/services/renew/index.js';
import { createTransaction } from '../../src/services/transactions/index.js';
import { cardYear } from '../helpers/cards.js';
import { paygate } from '../helpers/cli.js';
import { testApp, type TestApp } from '../helpers/ctx.js';
import { paygatePtyRun } from '../helpers/pty.js';
import { merchantWithPlan, subscribe } from '../helpers/subscriptions.js';

let db: string;
let dir: string;
let app: TestApp;

beforeAll(async () => {
  app = await testApp({ now: Date.UTC(2026, 0, 10, 9) });
  dir = app.dir;
  const { merchantId, planId } = await merchantWithPlan(app.ctx, { price: '10.00' });
  await subscribe(app.ctx, merchantId, planId, { userId: 'a' });
  await subscribe(app.ctx, merchantId, planId, { userId: 'b', card: '4000000000000036' });
  app.clock.set(Date.UTC(2026, 1, 10, 9, 0, 1));
  await runRenewal(app.ctx);
  app.clock.set(Date.UTC(2026, 1, 11, 9, 0, 1));
  await runRenewal(app.ctx);
  // A one-off PAY of 7.00 in February, refunded in full: not a subscription charge.
  const merchant = await requireMerchant(app.ctx, merchantId);
  const card = {
    holderName: 'Ada',
    cardNumber: '4242424242424242',
    month: '12',
    year: cardYear(app.clock.now()),
    cvv: '123',
  };
  const pay = await createTransaction(app.ctx, merchant, {
    requestId: 'one-off',
    relationId: 'one-off',
    paymentType: 'PAY',
    payAmount: '7.00',
    currency: 'USD',
    cardInfo: JSON.stringify(card),
  });
  await refundTransaction(app.ctx, merchant, { transactionOrderId: pay.transactionOrderId, refundAmount: '7.00' });
  // The app lets go of its database, which stays (a SQLite file or a PostgreSQL database) until
  // afterAll: the CLI reads it below.
  await app.ctx.close();
  db = app.dbPath;
});
afterAll(() => app?.close());

const args = () => ['--db', db, 'report', '--from', '2026-01', '--to', '2026-03'];

describe('paygate report', () => {
  it('--json prints every month with amounts as strings', () => {
    const r = paygate([...args(), '--json']);
    expect(r.status, r.stderr).toBe(0);
    const j = r.json();
    expect(j.currency).toBe('USD');
    expect(j.months).toEqual([
      {
        month: '2026-01',
        newSubscriptions: 2,
        churned: 0,
        active: 2,
        mrr: '20.00',
        charged: '20.00',
        refunded: '0.00',
        failedAttempts: 0,
        recovered: 0,
      },
      {
        month: '2026-02',
        newSubscriptions: 0,
        churned: 0,
        active: 2,
        mrr: '20.00',
        charged: '20.00',
        refunded: '0.00',
        failedAttempts: 1,
        recovered: 1,
      },
      {
        month: '2026-03',
        newSubscriptions: 0,
        churned: 0,
        active: 2,
        mrr: '20.00',
        charged: '0.00',
        refunded: '0.00',
        failedAttempts: 0,
        recovered: 0,
      },
    ]);
  });

  it('on a terminal shows the table and a line chart of MRR', async () => {
    const r = await paygatePtyRun(['--no-color', ...args()]);
    expect(r.status).toBe(0);
    expect(r.output).toContain('Revenue report');
    expect(r.output).toMatch(/2026-02.*20\.00.*20\.00/);
    expect(r.output).toContain('MRR at month end (USD)');
    expect(r.output).toMatch(/[┤┼╭╮╰╯─]/);
  });

  it('refuses a bad month with one line and exit 1', () => {
    const r = paygate(['--db', db, 'report', '--from', 'jan']);
    expect(r.status).toBe(1);
    expect(r.stderr.trim()).toMatch(/^error 1001: from: must be a month written yyyy-MM/);
  });

  it('--html FILE off a terminal writes the page and prints nothing (JSON only with --json)', () => {
    const file = join(dir, 'quiet.html');
    const r = paygate([...args(), '--html', file]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
    expect(readFileSync(file, 'utf8')).toContain('<svg');
  });

  it('--html refreshes a report page written before, and refuses any other file there unless --force', () => {
    const page = join(dir, 'again.html');
    expect(paygate([...args(), '--html', page]).status).toBe(0);
    expect(paygate([...args(), '--html', page]).status).toBe(0);
    // The database's key beside it (or the database itself) is never written over by mistake.
    const other = join(dir, 'notes.html');
    writeFileSync(other, 'my own notes\n');
    const r = paygate([...args(), '--html', other]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(
      /^error 1001: html: .*notes\.html already exists: choose another file, or add --force to replace it\n$/,
    );
    expect(readFileSync(other, 'utf8')).toBe('my own notes\n');
    // The vault key file beside a SQLite database (and on PostgreSQL, any file of the operator's).
    const key = join(dir, 'paygate.db.key');
    writeFileSync(key, `${Buffer.alloc(32, 1).toString('base64')}\n`, { mode: 0o600 });
    const key0 = readFileSync(key);
    expect(paygate([...args(), '--html', key]).status).toBe(1);
    expect(readFileSync(key).equals(key0)).toBe(true);
    expect(paygate([...args(), '--html', other, '--force']).status).toBe(0);
    expect(readFileSync(other, 'utf8')).toContain('<svg');
  });

  it('--html naming a directory is a one-line 1001 naming --html, before anything is read', () => {
    const r = paygate([...args(), '--html', dir]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^error 1001: html: .* is a directory: name a file\n$/);
  });

  it('charged and refunded are subscription charges, and the report says so: a refunded PAY is not in them', async () => {
    // February holds the refunded 7.00 PAY (beforeAll): its figures are the subscriptions' alone.
    const february = paygate([...args(), '--json']).json().months[1];
    expect(february).toMatchObject({ month: '2026-02', charged: '20.00', refunded: '0.00' });
    const shown = await paygatePtyRun(['--no-color', ...args()], { cols: 120 });
    expect(shown.output.replace(/\s+/g, ' ')).toContain(
      'charged and refunded count subscription charges only (first charges, renewals, retries, plan changes); one-off payments (PAY, checkout) are not in this report.',
    );
    expect(shown.output).toMatch(/subs charged/);
  });

  describe.skipIf(skipBrowser)('--html in Chromium', () => {
    // One browser for the file: a launch is most of what a test here costs on a loaded machine.
    let browser: Browser;
    beforeAll(async () => {
      browser = await launchChromium();
    });
    afterAll(() => browser?.close());

    it('every label of both charts lies inside its SVG, the last month (2027-01) included', async () => {
      const file = join(dir, 'year.html');
      const r = paygate(['--db', db, 'report', '--from', '2026-01', '--to', '2027-01', '--html', file]);
      expect(r.status, r.stderr).toBe(0);
      const page = await browser.newPage({ viewport: { width: 800, height: 900 } });
      try {
        await page.goto(pathToFileURL(file).href);
        // A string: the test project has no DOM types. Each text's box against its SVG's box.
        const outside = (await page.evaluate(`[...document.querySelectorAll('svg')].flatMap((svg) => {
          const frame = svg.getBoundingClientRect();
          return [...svg.querySelectorAll('text')]
            .filter((t) => {
              const b = t.getBoundingClientRect();
              return b.left < frame.left || b.right > frame.right || b.top < frame.top || b.bottom > frame.bottom;
            })
            .map((t) => t.textContent);
        })`)) as string[];
        expect(outside).toEqual([]);
        const labels = await page.locator('#mrr svg text').allTextContents();
        expect(labels).toContain('2027-01');
      } finally {
        await page.close();
      }
    });

    it('is one self-contained page that renders, loads nothing else, and shows the JSON’s numbers', async () => {
      const file = join(dir, 'report.html');
      const r = paygate([...args(), '--json', '--html', file]);
      expect(r.status, r.stderr).toBe(0);
      const json = r.json();
      const page = await browser.newPage();
      try {
        const requested: string[] = [];
        page.on('request', (req) => requested.push(req.url()));
        await page.goto(pathToFileURL(file).href);
        expect(requested).toEqual([pathToFileURL(file).href]);
        expect(await page.locator('svg').count()).toBe(2);
        expect(await page.locator('#mrr svg polyline').count()).toBe(1);
        const cells = (await page.locator('#figures tbody tr').allInnerTexts()).map((row) =>
          row.split('\t').map((c) => c.trim()),
        );
        const expected = json.months.map((m: Record<string, unknown>) =>
          [
            m.month,
            m.newSubscriptions,
            m.churned,
            m.active,
            m.mrr,
            m.charged,
            m.refunded,
            m.failedAttempts,
            m.recovered,
          ].map(String),
        );
        expect(cells).toEqual(expected);
        const box = await page.locator('#mrr svg').boundingBox();
        expect(box?.width ?? 0).toBeGreaterThan(200);
      } finally {
        await page.close();
      }
      expect(readFileSync(file, 'utf8')).not.toMatch(/<script|https?:\/\/(?!www\.w3\.org\/2000\/svg)/);
    });
  });
});
