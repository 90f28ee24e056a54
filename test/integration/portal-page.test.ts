import { afterEach, describe, expect, it } from 'vitest';
import { testApp, type TestApp } from '../helpers/ctx.js';
import { getPage, portalShop, visibleText, type PortalShop } from '../helpers/portal.js';
import { createPortalSession, PORTAL_TTL_MS } from '../../src/services/portal/index.js';
import { runRenewal } from '../../src/services/renew/index.js';
import { cancelSubscription, pauseSubscription, resumeSubscription } from '../../src/services/subscriptions/index.js';
import { subscribe } from '../helpers/subscriptions.js';
import { requireMerchant } from '../../src/services/merchants.js';
import { refundTransaction } from '../../src/services/refund.js';

let app: TestApp;
let shop: PortalShop;
afterEach(async () => {
  await shop?.close();
  await app?.close();
});

describe('the customer portal page (SPEC §18)', () => {
  it("shows the user's subscription: plan, amount, status, next payment and the card on file", async () => {
    app = await testApp();
    shop = await portalShop(app);
    const page = await getPage(shop.server, shop.path);
    expect(page.status).toBe(200);
    const text = visibleText(page.body);
    expect(text).toContain('Your subscriptions with Tea & Co');
    expect(text).toContain('Pro 30.00 USD every month');
    expect(text).toContain('Status Active');
    expect(text).toContain('Next payment 30.00 USD on 2026-02-15 09:00:00');
    expect(text).toContain('Card VISA ••4242, expires 12/');
    expect(text).toMatch(/2026-01-15 09:00:00 INITIAL 30\.00 USD SUCCESS/);
  });

  it('says the link has expired after 60 minutes, and to ask the shop for a new one', async () => {
    app = await testApp();
    shop = await portalShop(app);
    app.clock.advance(PORTAL_TTL_MS);
    const page = await getPage(shop.server, shop.path);
    expect(page.status).toBe(410);
    expect(visibleText(page.body)).toContain('This link has expired');
    expect(visibleText(page.body)).toContain('Please ask Tea & Co for a new one.');
  });

  it('says when the last payment failed and a retry waits: update your card', async () => {
    app = await testApp();
    shop = await portalShop(app);
    await subscribe(app.ctx, shop.merchantId, shop.planId, { userId: 'user-1', card: '4000000000000341' });
    app.clock.advance(31 * 86_400_000);
    await runRenewal(app.ctx);
    await shop.relink();
    const text = visibleText((await getPage(shop.server, shop.path)).body);
    expect(text).toContain('Your last payment failed; update your card and it is tried again at once.');
    expect(text).toContain('Next attempt 30.00 USD on 2026-02-16 09:00:00');
    expect(text).toMatch(/2026-02-15 09:00:00 RENEW 30\.00 USD FAILED Your card was declined/);
  });

  it('shows a paused subscription as paused, and a cancelled one with the date it runs until', async () => {
    app = await testApp();
    shop = await portalShop(app);
    const second = await subscribe(app.ctx, shop.merchantId, shop.planId, { userId: 'user-1' });
    await pauseSubscription(app.ctx, shop.merchantId, second.subscriptionId);
    await cancelSubscription(app.ctx, shop.merchantId, shop.subscriptionId);
    const text = visibleText((await getPage(shop.server, shop.path)).body);
    expect(text).toContain('Status Paused: nothing is charged until you resume it');
    expect(text).toContain('Status Cancelled: it runs until 2026-02-15 09:00:00');
  });

  it('tells a user without subscriptions that they have none', async () => {
    app = await testApp();
    shop = await portalShop(app);
    const link = await createPortalSession(app.ctx, shop.merchantId, { userId: 'nobody' });
    const text = visibleText((await getPage(shop.server, new URL(link.url).pathname)).body);
    expect(text).toContain('You have no subscriptions here.');
  });

  it("links each billing record's invoice, as a page and as a PDF, and names its credit notes", async () => {
    app = await testApp();
    shop = await portalShop(app);
    const paid = (await getPage(shop.server, shop.path)).body;
    const invoice = /<a href="([^"]+\/invoice\/[^"/]+)">Invoice (INV-\d+)<\/a>/.exec(paid);
    expect(invoice?.[2]).toBe('INV-000001');
    expect(paid).toContain(`<a href="${invoice?.[1]}/pdf">PDF`);
    const page = await getPage(shop.server, new URL(invoice?.[1] ?? '').pathname);
    expect(page.status).toBe(200);
    const merchant = await requireMerchant(app.ctx, shop.merchantId);
    await refundTransaction(app.ctx, merchant, {
      transactionOrderId: shop.transactionOrderId,
      refundAmount: '5.00',
      requestId: 'refund-1',
    });
    expect(visibleText((await getPage(shop.server, shop.path)).body)).toMatch(
      /Invoice INV-000001 \( PDF of INV-000001 \) Credit note INV-CN-000001 \( PDF of INV-CN-000001 \)/,
    );
  });

  it("links each refund's credit note, as a page and as a PDF, that open the credit note", async () => {
    app = await testApp();
    shop = await portalShop(app);
    const merchant = await requireMerchant(app.ctx, shop.merchantId);
    await refundTransaction(app.ctx, merchant, {
      transactionOrderId: shop.transactionOrderId,
      refundAmount: '5.00',
      requestId: 'refund-1',
    });
    const body = (await getPage(shop.server, shop.path)).body;
    const note = /<a href="([^"]+\/credit-note\/[^"/]+)">Credit note (INV-CN-\d+)<\/a>/.exec(body);
    expect(note?.[2]).toBe('INV-CN-000001');
    const url = new URL(note?.[1] ?? '');
    expect(body).toContain(`<a href="${url.href}/pdf">PDF`);
    const page = await getPage(shop.server, url.pathname);
    expect(page.status).toBe(200);
    expect(visibleText(page.body)).toContain('Credit note INV-CN-000001');
    const pdf = await shop.server.inject({ method: 'GET', url: `${url.pathname}/pdf` });
    expect(pdf.statusCode).toBe(200);
    expect(pdf.headers['content-type']).toBe('application/pdf');
  });

  it('lists the last 12 billing records that are history: not the next payment, not the renewals a pause cancelled', async () => {
    app = await testApp();
    shop = await portalShop(app);
    // INITIAL and 12 monthly renewals paid: 13 records of history, a RENEW pending.
    for (let i = 0; i < 12; i++) {
      app.clock.advance(31 * 86_400_000);
      await runRenewal(app.ctx);
    }
    // A pause cancels the pending RENEW (never charged), the resume schedules another.
    await pauseSubscription(app.ctx, shop.merchantId, shop.subscriptionId);
    await resumeSubscription(app.ctx, shop.merchantId, shop.subscriptionId);
    await shop.relink();
    const body = (await getPage(shop.server, shop.path)).body;
    const rows = [...(body.split('<tbody>')[1] ?? '').matchAll(/<tr>/g)];
    expect(rows).toHaveLength(12);
    expect(visibleText(body)).not.toContain('CANCELLED');
    expect(visibleText(body)).not.toContain('PENDING');
    expect(visibleText(body)).not.toMatch(/INITIAL/); // the oldest, 13th record
  });

  it('tells two subscriptions to one plan apart: each heading and billing history names its subscription', async () => {
    app = await testApp();
    shop = await portalShop(app);
    const second = await subscribe(app.ctx, shop.merchantId, shop.planId, { userId: 'user-1' });
    const body = (await getPage(shop.server, shop.path)).body;
    const text = visibleText(body);
    expect(text).toContain(`Pro subscription ${second.subscriptionCode}`);
    const labels = [...body.matchAll(/aria-label="([^"]+)"/g)].map((m) => m[1]);
    expect(labels).toContain(`Billing history of Pro, subscription ${second.subscriptionCode}`);
    expect(new Set(labels).size).toBe(labels.length);
    const headings = [...body.matchAll(/<h2[^>]*>([\s\S]*?)<\/h2>/g)].map((m) => m[1]);
    expect(headings).toHaveLength(2);
    expect(new Set(headings).size).toBe(2);
  });
});
