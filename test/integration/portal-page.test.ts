import { afterEach, describe, expect, it } from 'vitest';
import { testApp, type TestApp } from '../helpers/ctx.js';
import { getPage, portalShop, visibleText, type PortalShop } from '../helpers/portal.js';
import { PORTAL_TTL_MS } from '../../src/services/portal/index.js';

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
});
