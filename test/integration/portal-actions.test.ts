import { afterEach, describe, expect, it } from 'vitest';
import { CLOSED_NOTIFY_URL, testApp, type TestApp } from '../helpers/ctx.js';
import { csrfOf, formFields, getPage, portalShop, postForm, visibleText, type PortalShop } from '../helpers/portal.js';
import { rowsOf } from '../helpers/rows.js';
import { cardYear } from '../helpers/cards.js';
import { subscriptionDetail } from '../../src/services/subscriptions/index.js';
import { showMerchant, updateMerchant } from '../../src/services/merchants.js';

let app: TestApp;
let shop: PortalShop;
afterEach(async () => {
  await shop?.close();
  await app?.close();
});

const ALL = 'cancel,pause,resume,update-card,change-plan';

async function press(button: string): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  const page = await getPage(shop.server, shop.path);
  return postForm(shop.server, shop.path, formFields(page.body, button));
}

const status = async () => (await subscriptionDetail(app.ctx, shop.merchantId, shop.subscriptionId)).status;

const subscriptionEvents = async (): Promise<string[]> =>
  (
    await rowsOf(app.ctx).all<{ event_type: string }>(
      "SELECT event_type FROM outbox_events WHERE subscription_id = ? AND kind = 'SUBSCRIPTION' ORDER BY seq",
      shop.subscriptionId,
    )
  ).map((e) => e.event_type);

describe('portal actions (SPEC §18)', () => {
  it('merchant show lists the portal actions: cancel,update-card by default, none when cleared', async () => {
    app = await testApp();
    shop = await portalShop(app);
    expect(await showMerchant(app.ctx, shop.merchantId)).toMatchObject({ portalActions: 'cancel,update-card' });
    expect(await updateMerchant(app.ctx, shop.merchantId, { portalActions: 'none' })).toMatchObject({
      portalActions: 'none',
    });
    const text = visibleText((await getPage(shop.server, shop.path)).body);
    expect(text).not.toContain('Cancel subscription');
    expect(text).not.toContain('Update card');
  });

  it('offers only the actions the merchant allows: by default cancel and update-card', async () => {
    app = await testApp();
    shop = await portalShop(app);
    const text = visibleText((await getPage(shop.server, shop.path)).body);
    expect(text).toContain('Cancel subscription');
    expect(text).toContain('Update card');
    expect(text).not.toContain('Pause subscription');
    expect(text).not.toContain('Change plan');
  });

  it('refuses an action the merchant does not allow even when the form is posted by hand', async () => {
    app = await testApp();
    shop = await portalShop(app);
    const csrf = csrfOf((await getPage(shop.server, shop.path)).body);
    const res = await postForm(shop.server, shop.path, { csrf, action: 'pause', subscriptionId: shop.subscriptionId });
    expect(res.status).toBe(409);
    expect(visibleText(res.body)).toContain('Tea & Co does not offer this on its portal');
    expect(await status()).toBe('ACTIVE');
  });

  it('cancels only after a confirmation step that shows the endTime', async () => {
    app = await testApp();
    shop = await portalShop(app);
    const confirm = await press('Cancel subscription');
    expect(confirm.status).toBe(200);
    expect(visibleText(confirm.body)).toContain('your subscription ends on 2026-02-15 09:00:00');
    expect(await status()).toBe('ACTIVE');
    const done = await postForm(shop.server, shop.path, formFields(confirm.body, 'Yes, cancel it'));
    expect(done.status).toBe(200);
    expect(visibleText(done.body)).toContain('It runs until 2026-02-15 09:00:00');
    expect(await subscriptionDetail(app.ctx, shop.merchantId, shop.subscriptionId)).toMatchObject({
      status: 'CANCELLED',
      endTime: '2026-02-15 09:00:00',
    });
  });

  it('pauses and resumes through the same services as the API', async () => {
    app = await testApp();
    shop = await portalShop(app, { actions: ALL });
    expect(visibleText((await press('Pause subscription')).body)).toContain('Pro is paused');
    expect(await status()).toBe('PAUSED');
    const resumed = visibleText((await press('Resume subscription')).body);
    expect(resumed).toContain('Pro is active again. Next payment: 30.00 USD on 2026-02-15 09:00:00.');
    expect(await status()).toBe('ACTIVE');
  });

  it('updates the card: the new card is on file', async () => {
    app = await testApp();
    shop = await portalShop(app);
    const form = await press('Update card');
    const fields = {
      ...formFields(form.body, 'Save card'),
      holderName: 'Ada Lovelace',
      cardNumber: '5555 5555 5555 4444',
      month: '11',
      year: cardYear(app.clock.now()),
      cvv: '123',
    };
    const done = await postForm(shop.server, shop.path, fields);
    expect(visibleText(done.body)).toContain('Your new card is on file.');
    expect(visibleText(done.body)).toContain('MASTERCARD ••4444, expires 11/');
  });

  /** A card asking for 3-D Secure entered on the portal, the challenge answered: where the browser is sent back. */
  async function throughThreeDs(button: 'Complete' | 'Fail'): Promise<URL> {
    const form = await press('Update card');
    const fields = {
      ...formFields(form.body, 'Save card'),
      holderName: 'Ada Lovelace',
      cardNumber: '4000000000003220',
      month: '11',
      year: cardYear(app.clock.now()),
      cvv: '123',
    };
    const res = await postForm(shop.server, shop.path, fields);
    expect(res.status).toBe(303);
    const threeDs = String(res.headers.location);
    expect(threeDs).toMatch(/^\/3ds\//);
    const challenge = await getPage(shop.server, threeDs);
    const answered = await postForm(shop.server, threeDs, { ...formFields(challenge.body, button) });
    expect(answered.status).toBe(303);
    return new URL(String(answered.headers.location));
  }

  it('sends a card that asks for 3-D Secure to the 3DS page, which returns to the portal saying the card is on file', async () => {
    app = await testApp();
    shop = await portalShop(app);
    const back = await throughThreeDs('Complete');
    const landed = await getPage(shop.server, `${back.pathname}${back.search}`);
    expect(landed.status).toBe(200);
    const text = visibleText(landed.body);
    expect(text).toContain('Your new card is on file.');
    expect(text).toContain('VISA ••3220');
    // The page is the portal itself: its forms post to the link as any other.
    expect(formFields(landed.body, 'Update card').csrf).toBe(csrfOf((await getPage(shop.server, shop.path)).body));
  });

  it('says after a failed 3-D Secure that the new card was not saved and the old one stays, whatever the query says', async () => {
    app = await testApp();
    shop = await portalShop(app);
    const back = await throughThreeDs('Fail');
    expect(back.searchParams.get('status')).toBe('300000');
    // The status the 3DS page adds is a hint anyone can edit: the notice comes from the check itself.
    back.searchParams.set('status', '200000');
    const landed = await getPage(shop.server, `${back.pathname}${back.search}`);
    const text = visibleText(landed.body);
    expect(text).toContain(
      'Your new card was not saved: The card authentication failed. The card you had stays on file.',
    );
    expect(landed.body).toContain('role="alert"');
    expect(text).toContain('Card VISA ••4242');
    expect(text).not.toContain('Your new card is on file.');
  });

  it('shows a declined card with the reason and keeps the old one', async () => {
    app = await testApp();
    shop = await portalShop(app);
    const form = await press('Update card');
    const fields = {
      ...formFields(form.body, 'Save card'),
      holderName: 'Ada Lovelace',
      cardNumber: '4000000000000002',
      month: '11',
      year: cardYear(app.clock.now()),
      cvv: '123',
    };
    const res = await postForm(shop.server, shop.path, fields);
    expect(res.status).toBe(200);
    expect(res.body).toContain('role="alert"');
    expect(visibleText((await getPage(shop.server, shop.path)).body)).toContain('VISA ••4242');
  });

  it('changes the plan at period end: nothing charged, the new price from the next payment', async () => {
    app = await testApp();
    shop = await portalShop(app, { actions: ALL });
    const options = await press('Change plan');
    expect(visibleText(options.body)).toContain('60.00 USD every month starts on 2026-02-15 09:00:00');
    const done = await postForm(shop.server, shop.path, formFields(options.body, 'Change at period end'));
    expect(visibleText(done.body)).toContain('Premium starts with your next payment on 2026-02-15 09:00:00.');
    expect(visibleText(done.body)).toContain('Next payment 60.00 USD on 2026-02-15 09:00:00');
  });

  it('changes the plan now charging exactly the amount shown, and sends PLAN_CHANGED', async () => {
    app = await testApp();
    shop = await portalShop(app, { actions: ALL, notifyUrl: CLOSED_NOTIFY_URL });
    app.clock.advance(15 * 86_400_000); // half of the 31-day January period: credit 15.48, so 44.52 now
    await shop.relink();
    const options = await press('Change plan');
    expect(visibleText(options.body)).toContain('Change now: 44.52 USD is charged at once');
    const done = await postForm(shop.server, shop.path, formFields(options.body, 'Change now and pay 44.52 USD'));
    expect(visibleText(done.body)).toContain('You are now on Premium. 44.52 USD was charged.');
    const [change] = await rowsOf(app.ctx).all<{ amount: number }>(
      "SELECT amount FROM billing_records WHERE subscription_id = ? AND billing_type = 'CHANGE'",
      shop.subscriptionId,
    );
    expect(Number(change?.amount)).toBe(4452);
    expect(await subscriptionEvents()).toEqual(['PLAN_CHANGED']);
  });
});
