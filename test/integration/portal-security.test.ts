import { afterEach, describe, expect, it } from 'vitest';
import { onPostgres, testApp, type TestApp } from '../helpers/ctx.js';
import { csrfOf, formFields, getPage, portalShop, postForm, visibleText, type PortalShop } from '../helpers/portal.js';
import { merchantWithPlan, subscribe } from '../helpers/subscriptions.js';
import { cardYear } from '../helpers/cards.js';
import { updateMerchant } from '../../src/services/merchants.js';
import { subscriptionDetail } from '../../src/services/subscriptions/index.js';
import { PORTAL_ACTION_LIMIT } from '../../src/http/pages/portal.js';
import { PORTAL_CARD_CHECKS } from '../../src/services/portal/actions.js';
import { rowsOf } from '../helpers/rows.js';

let app: TestApp;
let shop: PortalShop;
afterEach(async () => {
  await shop?.close();
  await app?.close();
});

const ALL = 'cancel,pause,resume,update-card,change-plan';
const FORMS = ['cancel', 'cancel-confirm', 'pause', 'resume', 'card', 'card-submit', 'change', 'change-submit'];

/** Every row of every table, as text: what a copy of the database would give away. */
async function wholeDatabase(): Promise<string> {
  const rows = rowsOf(app.ctx);
  const tables = onPostgres
    ? await rows.all<{ name: string }>(
        "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'",
      )
    : await rows.all<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'");
  let all = '';
  for (const { name } of tables) all += JSON.stringify(await rows.all(`SELECT * FROM "${name}"`));
  return all;
}

describe('portal security (SPEC §18)', () => {
  it('stores no portal token when a card goes through 3-D Secure: the way back is sealed, bound to its check', async () => {
    app = await testApp();
    shop = await portalShop(app);
    const token = shop.path.replace('/portal/', '');
    const form = await postForm(
      shop.server,
      shop.path,
      formFields((await getPage(shop.server, shop.path)).body, 'Update card'),
    );
    const res = await postForm(shop.server, shop.path, {
      ...formFields(form.body, 'Save card'),
      holderName: 'Ada Lovelace',
      cardNumber: '4000000000003220',
      month: '11',
      year: cardYear(app.clock.now()),
      cvv: '123',
    });
    expect(String(res.headers.location)).toMatch(/^\/3ds\//);
    const db = await wholeDatabase();
    expect(db).toContain('/portal/return/');
    expect(db).not.toContain(token);
    const [check] = await rowsOf(app.ctx).all<{ id: string; return_url: string }>(
      "SELECT id, return_url FROM transactions WHERE payment_type = 'CARD_CHECK'",
    );
    const back = new URL(String(check?.return_url));
    expect((await getPage(shop.server, back.pathname)).status).toBe(200);
    // Sealed for that check only: under another transaction's id, or altered, it opens nothing.
    const other = back.pathname.replace(String(check?.id), shop.transactionOrderId);
    const sealed = back.pathname.split('/').pop() ?? '';
    const altered = back.pathname.replace(sealed, `${sealed.slice(0, -2)}${sealed.endsWith('AA') ? 'BA' : 'AA'}`);
    for (const path of [other, altered]) {
      const page = await getPage(shop.server, path);
      expect(page.status).toBe(404);
      expect(page.body).not.toContain(token);
    }
  });

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
    expect(visibleText(refused.body)).toMatch(/Please wait \d+ seconds and try again\./);
    app.clock.advance(59_500);
    const last = await postForm(shop.server, shop.path, fields);
    expect(last.headers['retry-after']).toBe('1');
    expect(visibleText(last.body)).toContain('Please wait 1 second and try again.');
    app.clock.advance(500);
    expect((await postForm(shop.server, shop.path, fields)).status).toBe(200);
  });

  it('answers HEAD on a valid link as GET, without the body; on an unknown one, not found', async () => {
    app = await testApp();
    shop = await portalShop(app);
    const head = await shop.server.inject({ method: 'HEAD', url: shop.path });
    expect(head.statusCode).toBe(200);
    expect(String(head.headers['content-type'])).toMatch(/^text\/html/);
    expect(head.body).toBe('');
    expect((await shop.server.inject({ method: 'HEAD', url: '/portal/not-a-real-token' })).statusCode).toBe(404);
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
