import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, skipBrowser } from '../helpers/browser.js';
import { layoutInvoice } from '../../src/domain/document-layout.js';
import { documentPage } from '../../src/http/pages/document-view.js';
import { contentSecurityPolicy, newNonce } from '../../src/http/pages/html.js';
import { sampleInvoice } from '../helpers/documents.js';

/** A long unbroken name and many lines: the worst a phone has to show. */
const invoice = sampleInvoice({
  customer: {
    name: 'Maximiliane Wolfeschlegelsteinhausenbergerdorff',
    addressLines: ['Hauptstraße 1', '10115 Berlin', 'DE'],
    email: 'maximiliane.wolfeschlegelsteinhausenbergerdorff@example.com',
  },
});

let server: Server;
let base: string;
let browser: Browser;

/**
 * The document page as the hosted route will serve it: its HTML with the hosted pages' CSP
 * header and a fresh nonce, from a loopback server.
 */
beforeAll(async () => {
  server = createServer((_req, res) => {
    const nonce = newNonce();
    res.setHeader('content-security-policy', contentSecurityPolicy(nonce, []));
    res.setHeader('content-type', 'text/html; charset=utf-8');
    res.end(documentPage(layoutInvoice(invoice, 'UTC'), { nonce, pdfUrl: '/invoice/tok.pdf' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  if (!skipBrowser) browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await new Promise<void>((resolve) => server?.close(() => resolve()));
});

async function open(width: number, bypassCSP = false): Promise<{ page: Page; violations: string[] }> {
  const page = await browser.newPage({ viewport: { width, height: 800 }, bypassCSP });
  const violations: string[] = [];
  page.on('console', (m) => {
    if (/Content Security Policy/i.test(m.text())) violations.push(m.text());
  });
  await page.goto(`${base}/invoice/tok`);
  return { page, violations };
}

describe.skipIf(skipBrowser)('the invoice page in Chromium', () => {
  it.each([360, 1280])('fits %d px without horizontal scrolling, styled under the strict CSP', async (width) => {
    const { page, violations } = await open(width);
    // Cells that run past the document's padding are cut off on paper and look broken on screen.
    const size = (await page.evaluate(`(() => {
      const article = document.querySelector('article');
      const edge = article.getBoundingClientRect().right - parseFloat(getComputedStyle(article).paddingRight);
      return {
        scroll: document.documentElement.scrollWidth,
        client: document.documentElement.clientWidth,
        radius: getComputedStyle(article).borderTopLeftRadius,
        overflowing: [...article.querySelectorAll('td,th,dd,p')]
          .filter((el) => el.getBoundingClientRect().right > edge + 0.5)
          .map((el) => el.textContent),
      };
    })()`)) as { scroll: number; client: number; radius: string; overflowing: string[] };
    expect(size.scroll).toBeLessThanOrEqual(size.client);
    expect(size.radius).toBe('14px');
    expect(size.overflowing).toEqual([]);
    expect(violations).toEqual([]);
    await page.close();
  });

  it('shows every line, the total and the card on a phone', async () => {
    const { page } = await open(360);
    const text = await page.locator('article').innerText();
    for (const s of ['INV-000042', 'T-shirt', '39.98 USD', '1,234.50 USD', 'Total paid', '1,300.00 USD', 'VISA ••4242'])
      expect(text).toContain(s);
    await page.close();
  });

  it('prints the document alone: no links, no page chrome', async () => {
    const { page } = await open(1280);
    await page.emulateMedia({ media: 'print' });
    const shown = await page.evaluate(
      `['.actions', '.foot', 'article'].map((s) => getComputedStyle(document.querySelector(s)).display)`,
    );
    expect(shown).toEqual(['none', 'none', 'block']);
    const pdf = await page.pdf({ format: 'A4' });
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
    await page.close();
  });

  it('has no accessibility violations (axe-core)', async () => {
    // The page's CSP rightly refuses the injected checker; the other tests hold the CSP.
    const { page } = await open(1280, true);
    const axe = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
    await page.addScriptTag({ content: axe });
    const ids = await page.evaluate('axe.run().then((r) => r.violations.map((v) => v.id))');
    expect(ids).toEqual([]);
    await page.close();
  });
});
