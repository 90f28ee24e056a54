import { afterEach, describe, expect, it } from 'vitest';
import { testApp, type TestApp } from '../helpers/ctx.js';
import { csrfOf, formFields, getPage, portalShop, postForm, visibleText, type PortalShop } from '../helpers/portal.js';
import { merchantWithPlan, subscribe } from '../helpers/subscriptions.js';
import { cardYear } from '../helpers/cards.js';
import { updateMerchant } from '../../src/services/merchants.js';
import { subscriptionDetail } from '../../src/services/subscriptions/index.js';
import { PORTAL_ACTION_LIMIT } from '../../src/http/pages/portal.js';
import { PORTAL_CARD_CHECKS } from '../../src/services/portal/actions.js';

let app: TestApp;
let shop: PortalShop;
afterEach(async () => {
  await shop?.close();
  await app?.close();
});

const ALL = 'cancel,pause,resume,update-card,change-plan';
const FORMS = ['cancel', 'cancel-confirm', 'pause', 'resume', 'card', 'card-submit', 'change', 'change-submit'];

describe('portal security (SPEC §18)', () => {
  it('serves the page with a strict CSP, no script and no external resource', async () => {
    app = await testApp();
    shop = await portalShop(app);
    const page = await getPage(shop.server, shop.path);
    expect(String(page.headers['content-security-policy'])).toMatch(/^default-src 'none'; style-src 'nonce-/);
    expect(page.headers['x-frame-options']).toBe('DENY');
    // Links (an invoice) are not resources: nothing loads but the page's own nonce'd style.
    expect(page.body).not.toMatch(/<script|\ssrc=|<link|url\(|@import/i);
  });

  it('answers an unknown token with the not-found page', async () => {
    app = await testApp();
    shop = await portalShop(app);
    const page = await getPage(shop.server, '/portal/not-a-real-token');
    expect(page.status).toBe(404);
    expect(visibleText(page.body)).toContain('This page does not exist');
  });

  it('answers every portal path with an HTML page, never JSON: another method, a JSON body', async () => {
    app = await testApp();
    shop = await portalShop(app);
    const put = await shop.server.inject({ method: 'PUT', url: shop.path });
    const json = await shop.server.inject({
      method: 'POST',
      url: shop.path,
      headers: { 'content-type': 'application/json' },
      payload: '{"action":"cancel"}',
    });
    for (const res of [put, json]) {
      expect(res.statusCode).toBeGreaterThanOrEqual(400);
      expect(String(res.headers['content-type'])).toMatch(/^text\/html/);
    }
  });

  it("reaches no other user's or merchant's subscription through any form", async () => {
    app = await testApp();
    shop = await portalShop(app, { actions: ALL });
    const otherUser = await subscribe(app.ctx, shop.merchantId, shop.planId, { userId: 'user-2' });
    const foreign = await merchantWithPlan(app.ctx);
    await updateMerchant(app.ctx, foreign.merchantId, { portalActions: ALL });
    const otherShop = await subscribe(app.ctx, foreign.merchantId, foreign.planId, { userId: 'user-1' });
    const page = await getPage(shop.server, shop.path);
    expect(page.body).not.toContain(otherUser.subscriptionId);
    expect(page.body).not.toContain(otherShop.subscriptionId);
    const csrf = csrfOf(page.body);
    for (const id of [otherUser.subscriptionId, otherShop.subscriptionId]) {
      for (const action of FORMS) {
        const res = await postForm(shop.server, shop.path, {
          csrf,
          action,
          subscriptionId: id,
          planId: shop.otherPlanId,
          when: 'PERIOD_END',
        });
        expect(res.status, `${action} ${id}`).toBe(404);
      }
    }
    expect((await subscriptionDetail(app.ctx, shop.merchantId, otherUser.subscriptionId)).status).toBe('ACTIVE');
    expect((await subscriptionDetail(app.ctx, foreign.merchantId, otherShop.subscriptionId)).status).toBe('ACTIVE');
  });

  it('refuses a form without its CSRF token, or with another link’s', async () => {
    app = await testApp();
    shop = await portalShop(app);
    const fields = formFields((await getPage(shop.server, shop.path)).body, 'Cancel subscription');
    const { csrf, ...rest } = fields;
    expect((await postForm(shop.server, shop.path, rest)).status).toBe(403);
    const firstPath = shop.path;
    await shop.relink();
    expect((await postForm(shop.server, shop.path, { ...rest, csrf: csrf ?? '' })).status).toBe(403);
    expect((await postForm(shop.server, firstPath, { ...rest, csrf: csrf ?? '' })).status).toBe(200);
  });

  it('refuses a replayed cancel: the subscription is cancelled once', async () => {
    app = await testApp();
    shop = await portalShop(app);
    const page = await getPage(shop.server, shop.path);
    const confirm = await postForm(shop.server, shop.path, formFields(page.body, 'Cancel subscription'));
    const yes = formFields(confirm.body, 'Yes, cancel it');
    expect((await postForm(shop.server, shop.path, yes)).status).toBe(200);
    const again = await postForm(shop.server, shop.path, yes);
    expect(again.status).toBe(409);
    expect(visibleText(again.body)).toContain('cannot cancel a CANCELLED subscription');
  });

  it(`rate-limits forms through one link to ${PORTAL_ACTION_LIMIT} per minute`, async () => {
    app = await testApp();
    shop = await portalShop(app);
    const fields = formFields((await getPage(shop.server, shop.path)).body, 'Update card');
    for (let i = 0; i < PORTAL_ACTION_LIMIT; i++)
      expect((await postForm(shop.server, shop.path, fields)).status).toBe(200);
    const refused = await postForm(shop.server, shop.path, fields);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    app.clock.advance(60_000);
    expect((await postForm(shop.server, shop.path, fields)).status).toBe(200);
  });

  it(`checks at most ${PORTAL_CARD_CHECKS} cards through one link`, async () => {
    app = await testApp();
    shop = await portalShop(app);
    const form = await postForm(
      shop.server,
      shop.path,
      formFields((await getPage(shop.server, shop.path)).body, 'Update card'),
    );
    const fields = {
      ...formFields(form.body, 'Save card'),
      holderName: 'Ada Lovelace',
      cardNumber: '4000000000000002',
      month: '11',
      year: cardYear(app.clock.now()),
      cvv: '123',
    };
    for (let i = 0; i < PORTAL_CARD_CHECKS; i++)
      expect(visibleText((await postForm(shop.server, shop.path, fields)).body)).toContain('declined');
    const last = await postForm(shop.server, shop.path, { ...fields, cardNumber: '4242424242424242' });
    expect(visibleText(last.body)).toContain('too many cards were tried on this link');
  });
});
