import { afterEach, describe, expect, it } from 'vitest';
import { parseTime } from '../../src/domain/time.js';
import { createCoupon } from '../../src/services/coupons.js';
import { invoiceDetail } from '../../src/services/documents/queries.js';
import { changePlan } from '../../src/services/plan-change/index.js';
import { runRenewal } from '../../src/services/renew/index.js';
import { listBillingRecords, subscriptionDetail } from '../../src/services/subscriptions/index.js';
import { takeCoupon } from '../../src/services/take-coupon.js';
import { createPlan } from '../../src/services/plans.js';
import { testApp, type TestApp } from '../helpers/ctx.js';
import { rowsOf } from '../helpers/rows.js';
import { CLOSED_NOTIFY_URL } from '../helpers/ctx.js';
import { merchantWithPlan, records, subRow, subscribe } from '../helpers/subscriptions.js';

let app: TestApp;
afterEach(async () => app?.close());
const t = (s: string): number => parseTime(s, 'UTC');
/** Merchant-initiated charges the sandbox channel was asked for. */
const renewalCalls = async (a: TestApp): Promise<number> =>
  (
    (await rowsOf(a.ctx).get(
      "SELECT count(*) AS n FROM sandbox_charges WHERE kind = 'charge' AND NOT customer_present",
    )) as { n: number }
  ).n;
const charged = async (a: TestApp, id: string) =>
  (await records(a.ctx, id)).map((r) => [r.billing_type, r.status, r.amount, r.discount_amount, r.coupon_code]);

async function renewAt(a: TestApp, when: string): Promise<void> {
  a.clock.set(t(when));
  await runRenewal(a.ctx);
}

describe('the discount at each charge', () => {
  it('a REPEATING 3-cycle 50% coupon discounts the first charge and the next two renewals, then the full price', async () => {
    app = await testApp({ now: t('2026-01-15 09:00:00') });
    const { merchantId, planId } = await merchantWithPlan(app.ctx, { price: '9.99' });
    await createCoupon(app.ctx, merchantId, { code: 'HALF3', percentOff: '50', duration: 'REPEATING', cycles: 3 });
    const sub = await subscribe(app.ctx, merchantId, planId, { couponCode: 'HALF3' });
    for (const m of ['02', '03', '04']) await renewAt(app, `2026-${m}-15 09:00:00`);
    // 9.99 × 50 % = 4.995: the charge rounds down to 4.99, the discount up to 5.00.
    expect(await charged(app, sub.subscriptionId)).toEqual([
      ['INITIAL', 'SUCCESS', 499, 500, 'HALF3'],
      ['RENEW', 'SUCCESS', 499, 500, 'HALF3'],
      ['RENEW', 'SUCCESS', 499, 500, 'HALF3'],
      ['RENEW', 'SUCCESS', 999, 0, null],
      ['RENEW', 'PENDING', 999, 0, null],
    ]);
    expect(await subRow(app.ctx, sub.subscriptionId)).toMatchObject({ coupon_cycles_used: 3, total_paid: 2496 });
  });

  it('a trial’s zero check is not discounted and uses no cycle: a ONCE coupon discounts the first paid renewal', async () => {
    app = await testApp({ now: t('2026-01-15 09:00:00') });
    const { merchantId, planId } = await merchantWithPlan(app.ctx, { price: '20.00', trialDays: 7 });
    await createCoupon(app.ctx, merchantId, { code: 'FIRST', amountOff: '5', duration: 'ONCE' });
    const sub = await subscribe(app.ctx, merchantId, planId, { couponCode: 'FIRST' });
    await renewAt(app, '2026-01-22 09:00:00');
    await renewAt(app, '2026-02-22 09:00:00');
    expect(await charged(app, sub.subscriptionId)).toEqual([
      ['INITIAL', 'SUCCESS', 0, 0, null],
      ['RENEW', 'SUCCESS', 1500, 500, 'FIRST'],
      ['RENEW', 'SUCCESS', 2000, 0, null],
      ['RENEW', 'PENDING', 2000, 0, null],
    ]);
  });

  it('a RETRY carries its RENEW’s discount and the cycle is spent once, when the retry is paid', async () => {
    app = await testApp({ now: t('2026-01-15 09:00:00') });
    const { merchantId, planId } = await merchantWithPlan(app.ctx, { price: '10.00' });
    await createCoupon(app.ctx, merchantId, { code: 'TWO', percentOff: '25', duration: 'REPEATING', cycles: 2 });
    // First renewal attempt declined, its first retry approved.
    const sub = await subscribe(app.ctx, merchantId, planId, { couponCode: 'TWO', card: '4000000000000036' });
    await renewAt(app, '2026-02-15 09:00:00');
    await renewAt(app, '2026-02-16 09:00:00');
    expect(await charged(app, sub.subscriptionId)).toEqual([
      ['INITIAL', 'SUCCESS', 750, 250, 'TWO'],
      ['RENEW', 'FAILED', 750, 250, 'TWO'],
      ['RETRY', 'SUCCESS', 750, 250, 'TWO'],
      ['RENEW', 'PENDING', 1000, 0, null],
    ]);
    expect(await subRow(app.ctx, sub.subscriptionId)).toMatchObject({ coupon_cycles_used: 2 });
  });

  it('a charge of zero after a 100% coupon is recorded SUCCESS without calling the channel', async () => {
    app = await testApp({ now: t('2026-01-15 09:00:00') });
    const { merchantId, planId } = await merchantWithPlan(app.ctx, { price: '10.00' });
    const sub = await subscribe(app.ctx, merchantId, planId);
    await createCoupon(app.ctx, merchantId, { code: 'FREE', percentOff: '100', duration: 'ONCE' });
    await takeCoupon(app.ctx, merchantId, { subscriptionId: sub.subscriptionId, couponCode: 'FREE' });
    await renewAt(app, '2026-02-15 09:00:00');
    expect(await renewalCalls(app)).toBe(0);
    expect((await charged(app, sub.subscriptionId)).slice(1)).toEqual([
      ['RENEW', 'SUCCESS', 0, 1000, 'FREE'],
      ['RENEW', 'PENDING', 1000, 0, null],
    ]);
    const page = await listBillingRecords(app.ctx, merchantId, { subscriptionCode: sub.subscriptionCode });
    expect(page.records[1]).toMatchObject({ billingType: 'RENEW', amount: 0, couponCode: 'FREE', discountAmount: 10 });
  });

  it('a first charge a 100% coupon brings to zero is recorded SUCCESS without calling the channel', async () => {
    app = await testApp({ now: t('2026-01-15 09:00:00') });
    const { merchantId, planId } = await merchantWithPlan(app.ctx, { price: '10.00' });
    await createCoupon(app.ctx, merchantId, { code: 'FREE', percentOff: '100', duration: 'ONCE' });
    // A card the sandbox declines: asked, it would end the subscription.
    const sub = await subscribe(app.ctx, merchantId, planId, { couponCode: 'FREE', card: '4000000000000002' });
    expect(sub.status).toBe(200000);
    const asked = (await rowsOf(app.ctx).get('SELECT count(*) AS n FROM sandbox_charges')) as { n: number };
    expect(asked.n).toBe(0);
    expect(await subRow(app.ctx, sub.subscriptionId)).toMatchObject({ status: 'ACTIVE', coupon_cycles_used: 1 });
    // The coupon is spent: the first renewal charges the full price, and that card is declined.
    await renewAt(app, '2026-02-15 09:00:00');
    expect((await charged(app, sub.subscriptionId)).slice(0, 2)).toEqual([
      ['INITIAL', 'SUCCESS', 0, 1000, 'FREE'],
      ['RENEW', 'FAILED', 1000, 0, null],
    ]);
  });

  it('a trial’s zero check still goes to the channel with a 100% coupon: a declined card ends the subscription', async () => {
    app = await testApp({ now: t('2026-01-15 09:00:00') });
    const { merchantId, planId } = await merchantWithPlan(app.ctx, { price: '10.00', trialDays: 7 });
    await createCoupon(app.ctx, merchantId, { code: 'FREE', percentOff: '100', duration: 'ONCE' });
    const sub = await subscribe(app.ctx, merchantId, planId, { couponCode: 'FREE', card: '4000000000000002' });
    expect(sub.status).toBe(300000);
    expect(await subRow(app.ctx, sub.subscriptionId)).toMatchObject({ status: 'EXPIRED' });
  });

  it('a coupon taken later re-prices the PENDING renewal and shows on the subscription detail while it lasts', async () => {
    app = await testApp({ now: t('2026-01-15 09:00:00') });
    const { merchantId, planId } = await merchantWithPlan(app.ctx, { price: '10.00' });
    const sub = await subscribe(app.ctx, merchantId, planId);
    await createCoupon(app.ctx, merchantId, { code: 'LOYAL', amountOff: '1', duration: 'FOREVER' });
    const detail = await takeCoupon(app.ctx, merchantId, { subscriptionId: sub.subscriptionId, couponCode: 'LOYAL' });
    expect(detail).toMatchObject({ couponCode: 'LOYAL', discountAmount: 1 });
    expect(await subscriptionDetail(app.ctx, merchantId, sub.subscriptionId)).toMatchObject({
      couponCode: 'LOYAL',
      discountAmount: 1,
    });
    expect((await charged(app, sub.subscriptionId))[1]).toEqual(['RENEW', 'PENDING', 900, 100, 'LOYAL']);
  });

  it('a new coupon replaces the old one from the next charge on', async () => {
    app = await testApp({ now: t('2026-01-15 09:00:00') });
    const { merchantId, planId } = await merchantWithPlan(app.ctx, { price: '10.00' });
    await createCoupon(app.ctx, merchantId, { code: 'A', amountOff: '1', duration: 'FOREVER' });
    await createCoupon(app.ctx, merchantId, { code: 'B', amountOff: '3', duration: 'ONCE' });
    const sub = await subscribe(app.ctx, merchantId, planId, { couponCode: 'A' });
    await takeCoupon(app.ctx, merchantId, { subscriptionId: sub.subscriptionId, couponCode: 'B' });
    await renewAt(app, '2026-02-15 09:00:00');
    expect(await charged(app, sub.subscriptionId)).toEqual([
      ['INITIAL', 'SUCCESS', 900, 100, 'A'],
      ['RENEW', 'SUCCESS', 700, 300, 'B'],
      ['RENEW', 'PENDING', 1000, 0, null],
    ]);
    expect((await subscriptionDetail(app.ctx, merchantId, sub.subscriptionId)).couponCode).toBeUndefined();
  });

  it('a CHANGE charge is discounted before the credit, uses a cycle, and the credit counts what was actually paid', async () => {
    app = await testApp({ now: t('2026-01-01 00:00:00') });
    const { merchantId, planId } = await merchantWithPlan(app.ctx, {
      price: '31.00',
      cycleType: 'DAILY',
      cycleLength: 31,
    });
    const pro = (
      await createPlan(app.ctx, merchantId, {
        planName: 'Max',
        price: '100.00',
        currency: 'USD',
        cycleType: 'MONTHLY',
        cycleLength: 1,
        trialDays: 0,
        maxSubscriptions: 0,
      })
    ).planId;
    await createCoupon(app.ctx, merchantId, { code: 'HALF', percentOff: '50', duration: 'REPEATING', cycles: 2 });
    const sub = await subscribe(app.ctx, merchantId, planId, { couponCode: 'HALF' });
    app.clock.set(t('2026-01-11 00:00:00'));
    await changePlan(app.ctx, merchantId, { subscriptionId: sub.subscriptionId, planId: pro, when: 'NOW' });
    const recs = await records(app.ctx, sub.subscriptionId);
    const change = recs.find((r) => r.billing_type === 'CHANGE');
    // Paid 15.50 for 31 days, 21 unused: credit 10.50 (not 21.00 of the undiscounted price).
    // 100.00 − 50 % = 50.00, less the 10.50 credit: 39.50 charged.
    expect(change).toMatchObject({ status: 'SUCCESS', amount: 3950, credit_applied: 1050, discount_amount: 5000 });
    expect(await subRow(app.ctx, sub.subscriptionId)).toMatchObject({ coupon_cycles_used: 2 });
    expect(recs.at(-1)).toMatchObject({ billing_type: 'RENEW', status: 'PENDING', amount: 10000, discount_amount: 0 });
    // Its invoice lists the reductions in the order they apply, as a renewal's does.
    const inv = await invoiceDetail(app.ctx, merchantId, { invoiceNumber: 'INV-000002' });
    expect(inv.lines.map((l) => [l.description, l.amount])).toEqual([
      ['Max', '100.00'],
      ['Discount (HALF)', '-50.00'],
      ['Credit for unused time on the previous plan', '-10.50'],
    ]);
  });

  it('subscription callbacks carry couponCode and discountAmount when the charge was discounted, and only then', async () => {
    app = await testApp({ now: t('2026-01-15 09:00:00') });
    const { merchantId, planId } = await merchantWithPlan(
      app.ctx,
      { price: '10.00' },
      { notifyUrl: CLOSED_NOTIFY_URL },
    );
    await createCoupon(app.ctx, merchantId, { code: 'ONE', amountOff: '2.50', duration: 'REPEATING', cycles: 2 });
    const sub = await subscribe(app.ctx, merchantId, planId, { couponCode: 'ONE' });
    await renewAt(app, '2026-02-15 09:00:00');
    await renewAt(app, '2026-03-15 09:00:00');
    const bodies = (
      (await rowsOf(app.ctx).all(
        "SELECT payload FROM outbox_events WHERE subscription_id = ? AND event_type = 'RENEW_SUCCEEDED' ORDER BY seq",
        sub.subscriptionId,
      )) as { payload: string }[]
    ).map((r) => JSON.parse(r.payload) as Record<string, string>);
    expect(bodies[0]).toMatchObject({ amount: '7.50', couponCode: 'ONE', discountAmount: '2.50' });
    expect(bodies[1]).toMatchObject({ amount: '10.00' });
    expect(bodies[1]).not.toHaveProperty('couponCode');
    expect(bodies[1]).not.toHaveProperty('discountAmount');
  });

  it('coupons leave the calendar as it is: the same renewal times with and without one', async () => {
    app = await testApp({ now: t('2026-01-31 09:00:00') });
    const { merchantId, planId } = await merchantWithPlan(app.ctx, { price: '10.00' });
    await createCoupon(app.ctx, merchantId, { code: 'ALL', percentOff: '100', duration: 'FOREVER' });
    const plain = await subscribe(app.ctx, merchantId, planId, { userId: 'plain' });
    const free = await subscribe(app.ctx, merchantId, planId, { userId: 'free', couponCode: 'ALL' });
    for (const when of ['2026-02-28 09:00:00', '2026-03-31 09:00:00', '2026-04-30 09:00:00']) await renewAt(app, when);
    const times = async (id: string) =>
      (await records(app.ctx, id)).map((r) => [r.billing_type, r.scheduled_time, r.status]);
    expect(await times(free.subscriptionId)).toEqual(await times(plain.subscriptionId));
  });
});
