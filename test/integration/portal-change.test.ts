import { afterEach, describe, expect, it } from 'vitest';
import { testApp, type TestApp } from '../helpers/ctx.js';
import { formFields, getPage, portalShop, postForm, visibleText, type PortalShop } from '../helpers/portal.js';
import { rowsOf } from '../helpers/rows.js';
import { requireMerchant } from '../../src/services/merchants.js';
import { refundTransaction } from '../../src/services/refund.js';
import { runRenewal } from '../../src/services/renew/index.js';
import { parseTime } from '../../src/domain/time.js';
import { unusedCredit } from '../../src/domain/proration.js';
import { createPortalSession, QUOTE_TTL_MS } from '../../src/services/portal/index.js';
import { createCoupon } from '../../src/services/coupons.js';
import { takeCoupon } from '../../src/services/take-coupon.js';
import { subscribe } from '../helpers/subscriptions.js';
import { cardYear } from '../helpers/cards.js';

let app: TestApp;
let shop: PortalShop;
afterEach(async () => {
  await shop?.close();
  await app?.close();
});

const ALL = 'cancel,pause,resume,update-card,change-plan';
const t = (s: string): number => parseTime(s, 'UTC');

/** The shop at `at` (the subscription started 2026-01-15 09:00, 30.00 USD a month), its portal open on the change page. */
async function changePageAt(at: string): Promise<string> {
  app = await testApp();
  shop = await portalShop(app, { actions: ALL });
  app.clock.advance(t(at) - app.clock.now());
  await shop.relink();
  const page = await getPage(shop.server, shop.path);
  return (await postForm(shop.server, shop.path, formFields(page.body, 'Change plan'))).body;
}

const changeCharges = async (): Promise<number[]> =>
  (
    await rowsOf(app.ctx).all<{ amount: number }>(
      "SELECT amount FROM billing_records WHERE subscription_id = ? AND billing_type = 'CHANGE' ORDER BY created_at",
      shop.subscriptionId,
    )
  ).map((r) => Number(r.amount));

describe('portal plan change: the amount shown is the amount charged (SPEC §18)', () => {
  it('charges the figure priced when the page was drawn, though the credit has moved a cent since', async () => {
    const page = await changePageAt('2026-01-30 09:00:00');
    expect(visibleText(page)).toContain('Change now: 44.52 USD is charged at once');
    app.clock.advance(14 * 60_000);
    const paidThrough = t('2026-02-15 09:00:00');
    // Priced at submission instead, the credit would be a cent less.
    expect(unusedCredit(3000, t('2026-01-15 09:00:00'), paidThrough, app.clock.now())).toBe(1547);
    const done = await postForm(shop.server, shop.path, formFields(page, 'Change now and pay 44.52 USD'));
    expect(visibleText(done.body)).toContain('44.52 USD was charged.');
    expect(await changeCharges()).toEqual([4452]);
  });

  it("shows the coupon's part of a change now, and what the first charge at period end will be", async () => {
    app = await testApp();
    shop = await portalShop(app, { actions: ALL });
    await createCoupon(app.ctx, shop.merchantId, { code: 'HALF', percentOff: '50', duration: 'FOREVER' });
    await takeCoupon(app.ctx, shop.merchantId, { subscriptionId: shop.subscriptionId, couponCode: 'HALF' });
    app.clock.advance(t('2026-01-30 09:00:00') - app.clock.now());
    await shop.relink();
    const page = await getPage(shop.server, shop.path);
    const text = visibleText((await postForm(shop.server, shop.path, formFields(page.body, 'Change plan'))).body);
    // 60.00 less the coupon's 30.00, less 15.48 of the period paid: 14.52, each figure on the page.
    expect(text).toContain(
      "Change now: 14.52 USD is charged at once to your card (the new plan's price, less 30.00 USD (coupon HALF), less the unused part of this period and any credit you hold, 15.48 USD)",
    );
    expect(text).toContain(
      '60.00 USD every month starts on 2026-02-15 09:00:00; its first charge is 30.00 USD (coupon HALF takes off 30.00 USD).',
    );
  });

  it('refuses the change when a renewal ran since the page was drawn, and shows the new amount', async () => {
    const page = await changePageAt('2026-02-15 08:50:00');
    expect(visibleText(page)).toContain('Change now: 60.00 USD is charged at once');
    app.clock.advance(10 * 60_000);
    expect(await runRenewal(app.ctx)).toMatchObject({ succeeded: 1 });
    const refused = await postForm(shop.server, shop.path, formFields(page, 'Change now and pay 60.00 USD'));
    expect(refused.status).toBe(409);
    const text = visibleText(refused.body);
    expect(text).toContain('The amount changed since the page was shown');
    expect(text).toContain('Change now: 30.00 USD is charged at once');
    expect(await changeCharges()).toEqual([]);
  });

  it('refuses the change when the period paid last was refunded since the page was drawn, and shows the new amount', async () => {
    const page = await changePageAt('2026-01-30 09:00:00');
    expect(visibleText(page)).toContain('Change now: 44.52 USD is charged at once');
    const m = await requireMerchant(app.ctx, shop.merchantId);
    await refundTransaction(app.ctx, m, { transactionOrderId: shop.transactionOrderId, refundAmount: '30.00' });
    const refused = await postForm(shop.server, shop.path, formFields(page, 'Change now and pay 44.52 USD'));
    expect(refused.status).toBe(409);
    // Refunded, the period credits nothing: the new plan's full price.
    expect(visibleText(refused.body)).toContain('Change now: 60.00 USD is charged at once');
    expect(await changeCharges()).toEqual([]);
  });

  it('refuses a figure edited in the form: nothing is charged', async () => {
    const page = await changePageAt('2026-01-30 09:00:00');
    const fields = { ...formFields(page, 'Change now and pay 44.52 USD'), q_charge: '1' };
    const refused = await postForm(shop.server, shop.path, fields);
    expect(refused.status).toBe(409);
    expect(visibleText(refused.body)).toContain('The amount shown was out of date');
    expect(await changeCharges()).toEqual([]);
  });

  it(`draws a figure older than ${QUOTE_TTL_MS / 60_000} minutes again instead of charging it`, async () => {
    const page = await changePageAt('2026-01-30 09:00:00');
    app.clock.advance(QUOTE_TTL_MS + 1);
    const refused = await postForm(shop.server, shop.path, formFields(page, 'Change now and pay 44.52 USD'));
    expect(refused.status).toBe(409);
    expect(visibleText(refused.body)).toContain('Change now: 44.53 USD is charged at once');
    expect(await changeCharges()).toEqual([]);
  });

  it('charges a replayed change-now form once: the replay is refused with the new figure', async () => {
    const page = await changePageAt('2026-01-30 09:00:00');
    const fields = formFields(page, 'Change now and pay 44.52 USD');
    expect(visibleText((await postForm(shop.server, shop.path, fields)).body)).toContain('You are now on Premium.');
    const replay = await postForm(shop.server, shop.path, fields);
    expect(replay.status).toBe(409);
    expect(await changeCharges()).toEqual([4452]);
  });

  it('a change at period end while a retry waits names the renewal after the retry, which is when the new plan is first charged', async () => {
    app = await testApp();
    shop = await portalShop(app, { actions: ALL });
    // user-2 (Pro, 30.00 a month from 2026-01-15 09:00): its renewal of 2026-02-15 is declined, a retry waits for 2026-02-16.
    const s = await subscribe(app.ctx, shop.merchantId, shop.planId, { userId: 'user-2', card: '4000000000000341' });
    app.clock.advance(31 * 86_400_000);
    await runRenewal(app.ctx);
    const path = new URL((await createPortalSession(app.ctx, shop.merchantId, { userId: 'user-2' })).url).pathname;
    const options = await postForm(
      shop.server,
      path,
      formFields((await getPage(shop.server, path)).body, 'Change plan'),
    );
    expect(visibleText(options.body)).toContain(
      '60.00 USD every month starts on 2026-03-15 09:00:00 (the payment being retried is still for Pro).',
    );
    const done = await postForm(shop.server, path, formFields(options.body, 'Change at period end'));
    const text = visibleText(done.body);
    expect(text).toContain(
      'Premium starts with the renewal on 2026-03-15 09:00:00; the payment being retried is still for Pro.',
    );
    expect(text).toContain('Next attempt 30.00 USD on 2026-02-16 09:00:00');
    expect(text).toContain('Plan change Premium from the renewal on 2026-03-15 09:00:00');
    expect(text).not.toContain('From the next payment');
    // What the page said is what happens: a good card, the retry charges Pro, and Premium's 60.00 comes on 2026-03-15.
    const card = await postForm(shop.server, path, formFields(done.body, 'Update card'));
    await postForm(shop.server, path, {
      ...formFields(card.body, 'Save card'),
      holderName: 'Ada Lovelace',
      cardNumber: '4242424242424242',
      month: '11',
      year: cardYear(app.clock.now()),
      cvv: '123',
    });
    await runRenewal(app.ctx);
    const records = await rowsOf(app.ctx).all<{
      billing_type: string;
      amount: number;
      status: string;
      scheduled_time: number;
    }>(
      "SELECT billing_type, amount, status, scheduled_time FROM billing_records WHERE subscription_id = ? AND billing_type <> 'INITIAL' ORDER BY created_at, id",
      s.subscriptionId,
    );
    expect(records.map((r) => [r.billing_type, Number(r.amount), r.status])).toEqual([
      ['RENEW', 3000, 'FAILED'],
      ['RETRY', 3000, 'SUCCESS'],
      ['RENEW', 6000, 'PENDING'],
    ]);
    expect(Number(records[2]?.scheduled_time)).toBe(t('2026-03-15 09:00:00'));
  });
});
