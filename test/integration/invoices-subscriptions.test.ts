import { afterEach, describe, expect, it } from 'vitest';
import { parseTime } from '../../src/domain/time.js';
import { createCoupon } from '../../src/services/coupons.js';
import { invoiceDetail, listInvoices, pageInvoiceViews } from '../../src/services/documents/queries.js';
import { completeThreeDs } from '../../src/services/pages.js';
import { changePlan } from '../../src/services/plan-change/index.js';
import { createPlan } from '../../src/services/plans.js';
import { runRenewal } from '../../src/services/renew/index.js';
import { updateMerchant } from '../../src/services/merchants.js';
import { updateSubscription } from '../../src/services/subscriptions/update.js';
import { CLOSED_NOTIFY_URL, type TestApp, testApp } from '../helpers/ctx.js';
import { rowsOf } from '../helpers/rows.js';
import { merchantWithPlan, subscribe } from '../helpers/subscriptions.js';

/**
 * Subscription charges' invoices (SPEC §17): the first charge, every renewal and a plan change
 * charged at once each get theirs in the unit of work that records them, with the plan and its
 * service period; a trial's zero first charge gets none.
 */
let app: TestApp;
afterEach(async () => app?.close());

const t = (s: string): number => parseTime(s, 'UTC');

const subscriptionInvoices = async (merchantId: string, subscriptionCode: string) =>
  (await listInvoices(app.ctx, merchantId, { subscriptionCode, pageSize: 100 })).records;

const lastBody = async (subscriptionId: string, eventType: string): Promise<Record<string, string>> => {
  const row = await rowsOf(app.ctx).get<{ payload: string }>(
    'SELECT payload FROM outbox_events WHERE subscription_id = ? AND event_type = ? ORDER BY created_at DESC, id DESC',
    subscriptionId,
    eventType,
  );
  return JSON.parse(row.payload) as Record<string, string>;
};

describe('subscription invoices', () => {
  it("invoices the first charge and each renewal with the plan's service period, named in RENEW_SUCCEEDED", async () => {
    app = await testApp({ now: t('2026-01-10 12:00:00') });
    const { ctx, clock } = app;
    const { merchantId, planId } = await merchantWithPlan(ctx, {}, { notifyUrl: CLOSED_NOTIFY_URL });
    const sub = await subscribe(ctx, merchantId, planId);
    clock.set(t('2026-02-10 12:00:00'));
    expect(await runRenewal(ctx)).toMatchObject({ due: 1, succeeded: 1 });
    const [renewal, first] = await subscriptionInvoices(merchantId, sub.subscriptionCode);
    expect(first).toMatchObject({
      invoiceNumber: 'INV-000001',
      total: '9.99',
      subscriptionCode: sub.subscriptionCode,
      lines: [
        { description: 'Pro', periodFrom: '2026-01-10 12:00:00', periodTo: '2026-02-10 12:00:00', amount: '9.99' },
      ],
    });
    expect(renewal).toMatchObject({
      invoiceNumber: 'INV-000002',
      total: '9.99',
      lines: [
        { description: 'Pro', periodFrom: '2026-02-10 12:00:00', periodTo: '2026-03-10 12:00:00', amount: '9.99' },
      ],
      paidWith: { last4: '4242' },
    });
    expect(renewal).not.toHaveProperty('relationId');
    expect(await lastBody(sub.subscriptionId, 'RENEW_SUCCEEDED')).toMatchObject({
      invoiceNumber: 'INV-000002',
      invoiceUrl: renewal?.url,
    });
  });

  const ADA = {
    firstName: 'Ada',
    lastName: 'Lovelace',
    street: '1 Main St',
    city: 'London',
    country: 'GB',
    email: 'ada@example.com',
  };

  it("bills a renewal to the name and address of the subscription's first charge", async () => {
    app = await testApp({ now: t('2026-01-10 12:00:00') });
    const { ctx, clock } = app;
    const { merchantId, planId } = await merchantWithPlan(ctx);
    await subscribe(ctx, merchantId, planId, { billingAddress: ADA });
    clock.set(t('2026-02-10 12:00:00'));
    await runRenewal(ctx);
    const first = await invoiceDetail(ctx, merchantId, { invoiceNumber: 'INV-000001' });
    const renewal = await invoiceDetail(ctx, merchantId, { invoiceNumber: 'INV-000002' });
    expect(first.customer).toEqual({
      name: 'Ada Lovelace',
      addressLines: ['1 Main St', 'London', 'GB'],
      email: 'ada@example.com',
    });
    expect(renewal.customer).toEqual(first.customer);
  });

  it("bills a renewal to the subscription's email as it is when renewed", async () => {
    app = await testApp({ now: t('2026-01-10 12:00:00') });
    const { ctx, clock } = app;
    const { merchantId, planId } = await merchantWithPlan(ctx);
    const sub = await subscribe(ctx, merchantId, planId, { billingAddress: ADA });
    await updateSubscription(ctx, merchantId, { subscriptionId: sub.subscriptionId, email: 'ada@lovelace.example' });
    clock.set(t('2026-02-10 12:00:00'));
    await runRenewal(ctx);
    const d = await invoiceDetail(ctx, merchantId, { invoiceNumber: 'INV-000002' });
    expect(d.customer).toEqual({
      name: 'Ada Lovelace',
      addressLines: ['1 Main St', 'London', 'GB'],
      email: 'ada@lovelace.example',
    });
  });

  it("bills a trial's first paid renewal to the first charge's billingAddress, though that charge had no invoice", async () => {
    app = await testApp({ now: t('2026-01-10 12:00:00') });
    const { ctx, clock } = app;
    const { merchantId, planId } = await merchantWithPlan(ctx, { trialDays: 14 });
    await subscribe(ctx, merchantId, planId, { billingAddress: ADA });
    clock.set(t('2026-01-24 12:00:00'));
    await runRenewal(ctx);
    const d = await invoiceDetail(ctx, merchantId, { invoiceNumber: 'INV-000001' });
    expect(d.customer).toEqual({
      name: 'Ada Lovelace',
      addressLines: ['1 Main St', 'London', 'GB'],
      email: 'ada@example.com',
    });
  });

  it('bills a renewal of a subscription whose first charge had no billingAddress to no one by name', async () => {
    app = await testApp({ now: t('2026-01-10 12:00:00') });
    const { ctx, clock } = app;
    const { merchantId, planId } = await merchantWithPlan(ctx);
    await subscribe(ctx, merchantId, planId);
    clock.set(t('2026-02-10 12:00:00'));
    await runRenewal(ctx);
    const d = await invoiceDetail(ctx, merchantId, { invoiceNumber: 'INV-000002' });
    expect(d.customer).toEqual({ addressLines: [] });
  });

  it("lists a coupon's discount on the first charge as a negative line, after 3-D Secure", async () => {
    app = await testApp({ now: t('2026-01-10 12:00:00') });
    const { ctx } = app;
    const { merchantId, planId } = await merchantWithPlan(ctx, { price: '9.99' });
    const sub = await subscribe(ctx, merchantId, planId, { card: '4000000000003220' });
    // The coupon is taken when the subscription is created (SPEC §19); written here as its record would carry it.
    await rowsOf(ctx).run(
      "UPDATE billing_records SET coupon_code = 'WELCOME', discount_amount = 200 WHERE subscription_id = ?",
      sub.subscriptionId,
    );
    const page = await rowsOf(ctx).get<{ page_token: string }>(
      'SELECT page_token FROM transactions WHERE id = ?',
      sub.transactionOrderId,
    );
    expect((await completeThreeDs(ctx, page.page_token, true)).result).toBe('succeeded');
    const [inv] = await subscriptionInvoices(merchantId, sub.subscriptionCode);
    expect(inv?.lines).toMatchObject([
      { description: 'Pro', amount: '11.99' },
      { description: 'Discount (WELCOME)', amount: '-2.00' },
    ]);
    expect(inv?.total).toBe('9.99');
  });

  it("lists a coupon's discount on each renewal it covers, before a plan change's credit", async () => {
    app = await testApp({ now: t('2026-01-10 12:00:00') });
    const { ctx, clock } = app;
    const { merchantId, planId } = await merchantWithPlan(ctx, { price: '9.99' });
    await createCoupon(ctx, merchantId, { code: 'TWO', amountOff: '2', duration: 'REPEATING', cycles: 2 });
    const sub = await subscribe(ctx, merchantId, planId, { couponCode: 'TWO' });
    clock.set(t('2026-02-10 12:00:00'));
    expect(await runRenewal(ctx)).toMatchObject({ succeeded: 1 });
    clock.set(t('2026-03-10 12:00:00'));
    expect(await runRenewal(ctx)).toMatchObject({ succeeded: 1 });
    const [third, renewal, first] = await subscriptionInvoices(merchantId, sub.subscriptionCode);
    for (const inv of [first, renewal])
      expect(inv).toMatchObject({
        total: '7.99',
        lines: [
          { description: 'Pro', amount: '9.99' },
          { description: 'Discount (TWO)', amount: '-2.00' },
        ],
        couponCode: 'TWO',
        discountAmount: '2.00',
      });
    expect(third).toMatchObject({ total: '9.99', lines: [{ description: 'Pro', amount: '9.99' }] });
    expect(third?.lines).toHaveLength(1);
    expect(third).not.toHaveProperty('couponCode');
    expect(third).not.toHaveProperty('discountAmount');
  });

  it("issues a trial's zero first charge no invoice; its first paid renewal is INV-000001", async () => {
    app = await testApp({ now: t('2026-01-10 12:00:00') });
    const { ctx, clock } = app;
    const { merchantId, planId } = await merchantWithPlan(ctx, { trialDays: 14 });
    const sub = await subscribe(ctx, merchantId, planId);
    expect(await subscriptionInvoices(merchantId, sub.subscriptionCode)).toEqual([]);
    clock.set(t('2026-01-24 12:00:00'));
    await runRenewal(ctx);
    expect((await subscriptionInvoices(merchantId, sub.subscriptionCode)).map((i) => i.invoiceNumber)).toEqual([
      'INV-000001',
    ]);
  });

  it('issues a declined renewal no invoice', async () => {
    app = await testApp({ now: t('2026-01-10 12:00:00') });
    const { ctx, clock } = app;
    const { merchantId, planId } = await merchantWithPlan(ctx);
    // The sandbox card whose renewals decline.
    const sub = await subscribe(ctx, merchantId, planId, { card: '4000000000000341' });
    clock.set(t('2026-02-10 12:00:00'));
    expect(await runRenewal(ctx)).toMatchObject({ due: 1, succeeded: 0 });
    expect((await subscriptionInvoices(merchantId, sub.subscriptionCode)).map((i) => i.invoiceNumber)).toEqual([
      'INV-000001',
    ]);
  });

  it("shows a plan change charged at once with the old plan's unused time as a negative line", async () => {
    app = await testApp({ now: t('2026-01-01 00:00:00') });
    const { ctx, clock } = app;
    const { merchantId, planId } = await merchantWithPlan(ctx, { price: '10.00' }, { notifyUrl: CLOSED_NOTIFY_URL });
    const pro = await createPlan(ctx, merchantId, {
      planName: 'Pro Plus',
      price: '30.00',
      currency: 'USD',
      cycleType: 'MONTHLY',
      cycleLength: 1,
    });
    const sub = await subscribe(ctx, merchantId, planId);
    clock.set(t('2026-01-16 12:00:00'));
    const r = await changePlan(ctx, merchantId, {
      subscriptionId: sub.subscriptionId,
      planId: pro.planId,
      when: 'NOW',
    });
    expect(r.result).toBe('CHANGED');
    const inv = await invoiceDetail(ctx, merchantId, { invoiceNumber: 'INV-000002' });
    expect(inv.lines).toMatchObject([
      { description: 'Pro Plus', periodFrom: '2026-01-16 12:00:00', periodTo: '2026-02-16 12:00:00', amount: '30.00' },
      { description: 'Credit for unused time on the previous plan', amount: '-5.00' },
    ]);
    expect(inv.total).toBe('25.00');
    expect(await lastBody(sub.subscriptionId, 'PLAN_CHANGED')).toMatchObject({ invoiceNumber: 'INV-000002' });
  });

  it("numbers a renewal run's invoices without a gap after the first charges'", async () => {
    app = await testApp({ now: t('2026-01-10 12:00:00') });
    const { ctx, clock } = app;
    const { merchantId, planId } = await merchantWithPlan(ctx);
    const count = 40;
    // Subscribed side by side: the first charges race for their numbers too (one at a time would be slow on PostgreSQL).
    await Promise.all(Array.from({ length: count }, (_, i) => subscribe(ctx, merchantId, planId, { userId: `u${i}` })));
    clock.set(t('2026-02-10 12:00:00'));
    expect(await runRenewal(ctx)).toMatchObject({ due: count, succeeded: count });
    const all = (await pageInvoiceViews(ctx, merchantId, {}, { page: 1, limit: 1000 })).items;
    expect(all.map((i) => i.invoiceNumber).sort()).toEqual(
      Array.from({ length: 2 * count }, (_, i) => `INV-${String(i + 1).padStart(6, '0')}`),
    );
  });

  // One batch records both merchants' renewals side by side (on PostgreSQL as shared statements).
  it("numbers two merchants' renewals of one batch each without a gap, and writes each email once", async () => {
    // Emails are written only where they can be sent; none is sent here (nothing listens there).
    app = await testApp({ now: t('2026-01-10 12:00:00'), env: { PAYGATE_SMTP_URL: 'smtp://127.0.0.1:9' } });
    const { ctx, clock } = app;
    const shops = [await merchantWithPlan(ctx), await merchantWithPlan(ctx)];
    for (const shop of shops)
      await updateMerchant(ctx, shop.merchantId, { emailFrom: 'billing@shop.test', customerEmails: 'on' });
    const billingAddress = { firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com' };
    // Interleaved, and one in three declines: its renewal writes a renewal-failed email instead.
    for (let i = 0; i < 12; i++) {
      const shop = shops[i % 2] as (typeof shops)[0];
      await subscribe(ctx, shop.merchantId, shop.planId, { userId: `u${i}`, billingAddress });
    }
    const declining = await subscribe(ctx, shops[0]?.merchantId ?? '', shops[0]?.planId ?? '', {
      userId: 'declines',
      billingAddress,
      card: '4000000000000341',
    });
    clock.set(t('2026-02-10 12:00:00'));
    expect(await runRenewal(ctx, { deliverCallbacks: false })).toMatchObject({ due: 13, succeeded: 12, failed: 1 });
    for (const [k, shop] of shops.entries()) {
      const numbers = (await pageInvoiceViews(ctx, shop.merchantId, {}, { page: 1, limit: 100 })).items
        .map((i) => i.invoiceNumber)
        .sort();
      // The first charges' (six, and the declining card's on the first shop), then the renewals'.
      const count = k === 0 ? 7 + 6 : 6 + 6;
      expect(numbers).toEqual(Array.from({ length: count }, (_, i) => `INV-${String(i + 1).padStart(6, '0')}`));
    }
    const emails = await rowsOf(ctx).all<{ kind: string; n: number }>(
      'SELECT kind, count(*) AS n FROM customer_emails GROUP BY kind ORDER BY kind',
    );
    expect(emails.map((e) => [e.kind, Number(e.n)])).toEqual([
      ['receipt', 13 + 12],
      ['renewal-failed', 1],
    ]);
    const failed = await rowsOf(ctx).all<{ subscription_id: string }>(
      "SELECT subscription_id FROM customer_emails WHERE kind = 'renewal-failed'",
    );
    expect(failed.map((f) => f.subscription_id)).toEqual([declining.subscriptionId]);
  });
});
