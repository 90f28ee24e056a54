import { afterEach, describe, expect, it } from 'vitest';
import { CLOSED_NOTIFY_URL, testApp, type TestApp } from '../helpers/ctx.js';
import { rowsOf } from '../helpers/rows.js';
import { merchantWithPlan, planCount, records, subRow, subscribe } from '../helpers/subscriptions.js';
import { requireMerchant } from '../../src/services/merchants.js';
import { createPlan } from '../../src/services/plans.js';
import { refundTransaction } from '../../src/services/refund.js';
import { changePlan } from '../../src/services/plan-change/index.js';
import { updateCard } from '../../src/services/card-update/index.js';
import { runRenewal } from '../../src/services/renew/index.js';
import {
  cancelSubscription,
  pauseSubscription,
  resumeSubscription,
  subscriptionDetail,
} from '../../src/services/subscriptions/index.js';
import { isPaygateError } from '../../src/domain/errors.js';
import { parseTime } from '../../src/domain/time.js';
import type { Ctx } from '../../src/ctx.js';
import type { Channel } from '../../src/channel/channel.js';

let app: TestApp;
afterEach(async () => app?.close());
const t = (s: string): number => parseTime(s, 'UTC');

async function plan(
  ctx: Ctx,
  merchantId: string,
  price: string,
  o: { cycleType?: 'DAILY' | 'WEEKLY' | 'MONTHLY' | 'YEARLY'; maxSubscriptions?: number } = {},
): Promise<string> {
  const p = await createPlan(ctx, merchantId, {
    planName: `Plan ${price}`,
    price,
    currency: 'USD',
    cycleType: o.cycleType ?? 'MONTHLY',
    cycleLength: 1,
    trialDays: 0,
    maxSubscriptions: o.maxSubscriptions ?? 0,
  });
  return p.planId;
}

const events = async (a: TestApp, subscriptionId: string): Promise<Record<string, string>[]> =>
  (
    await rowsOf(a.ctx).all<{ payload: string }>(
      "SELECT payload FROM outbox_events WHERE subscription_id = ? AND kind = 'SUBSCRIPTION' ORDER BY seq",
      subscriptionId,
    )
  ).map((r) => JSON.parse(r.payload) as Record<string, string>);

const codeOf = async (p: Promise<unknown>): Promise<string | undefined> =>
  p.then(
    () => undefined,
    (e: unknown) => (isPaygateError(e) ? e.code : 'thrown'),
  );

describe('plan change now', () => {
  it('credits the unused part of the paid period by time, rounded down, charges the rest as CHANGE and starts the new calendar now', async () => {
    app = await testApp({ now: t('2026-01-01 00:00:00') });
    const { ctx, clock } = app;
    const { merchantId, planId } = await merchantWithPlan(ctx, { price: '10.00' }, { notifyUrl: CLOSED_NOTIFY_URL });
    const pro = await plan(ctx, merchantId, '30.00');
    const sub = await subscribe(ctx, merchantId, planId);
    clock.set(t('2026-01-16 00:00:00'));
    const r = await changePlan(ctx, merchantId, { subscriptionId: sub.subscriptionId, planId: pro, when: 'NOW' });
    // 16 of 31 days unused: floor(1000 × 16 / 31) = 516 credited, 3000 − 516 charged.
    expect(r).toMatchObject({
      result: 'CHANGED',
      planId: pro,
      credit: 5.16,
      creditBalance: 0,
      nextBillingTime: '2026-02-16 00:00:00',
    });
    expect(r.record).toMatchObject({ billingType: 'CHANGE', amount: 24.84, status: 'SUCCESS' });
    expect(await subRow(ctx, sub.subscriptionId)).toMatchObject({
      plan_id: pro,
      amount: 3000,
      anchor_time: t('2026-01-16 00:00:00'),
      total_paid: 1000 + 2484,
      billing_count: 2,
    });
    expect((await records(ctx, sub.subscriptionId)).map((x) => [x.billing_type, x.status, x.amount])).toEqual([
      ['INITIAL', 'SUCCESS', 1000],
      ['RENEW', 'CANCELLED', 1000],
      ['CHANGE', 'SUCCESS', 2484],
      ['RENEW', 'PENDING', 3000],
    ]);
    expect([await planCount(ctx, planId), await planCount(ctx, pro)]).toEqual([0, 1]);
    const changed = (await events(app, sub.subscriptionId)).find((e) => e.eventType === 'PLAN_CHANGED');
    expect(changed).toMatchObject({
      planId: pro,
      previousPlanId: planId,
      changeWhen: 'NOW',
      billingType: 'CHANGE',
      amount: '24.84',
      credit: '5.16',
      creditBalance: '0.00',
      nextBillingTime: '2026-02-16 00:00:00',
    });
    clock.set(t('2026-02-16 00:00:00'));
    expect(await runRenewal(ctx)).toMatchObject({ due: 1, succeeded: 1 });
    expect((await subscriptionDetail(ctx, merchantId, sub.subscriptionId)).nextBillingTime).toBe('2026-03-16 00:00:00');
  });

  it('credits a period paid late by its retry from the period’s start, as its invoice reads, not from the retry', async () => {
    app = await testApp({ now: t('2026-01-01 00:00:00') });
    const { ctx, clock } = app;
    const { merchantId, planId } = await merchantWithPlan(ctx, { price: '30.00' }, { notifyUrl: CLOSED_NOTIFY_URL });
    const pro = await plan(ctx, merchantId, '50.00');
    // The card's first attempt at each renewal is declined; its first retry, a day later, is approved.
    const sub = await subscribe(ctx, merchantId, planId, { card: '4000000000000036' });
    clock.set(t('2026-02-01 00:00:00'));
    expect(await runRenewal(ctx)).toMatchObject({ due: 1, failed: 1 });
    clock.set(t('2026-02-02 00:00:00'));
    expect(await runRenewal(ctx)).toMatchObject({ due: 1, succeeded: 1 });
    expect(await subRow(ctx, sub.subscriptionId)).toMatchObject({ paid_through: t('2026-03-01 00:00:00') });
    clock.set(t('2026-02-19 00:00:00'));
    // A card whose first attempt is not declined, for the change's own charge.
    const card = { cardNumber: '4242424242424242', month: '12', year: '2030', cvv: '123' };
    expect((await updateCard(ctx, merchantId, { subscriptionId: sub.subscriptionId, cardInfo: card })).status).toBe(
      '200000',
    );
    const r = await changePlan(ctx, merchantId, { subscriptionId: sub.subscriptionId, planId: pro, when: 'NOW' });
    // The retry paid for 2026-02-01 – 2026-03-01: 10 of its 28 days unused, floor(3000 × 10 / 28) = 1071.
    // Counted from the retry (27 days) it would be floor(3000 × 10 / 27) = 1111.
    expect(r).toMatchObject({ result: 'CHANGED', credit: 10.71 });
    expect(r.record).toMatchObject({ billingType: 'CHANGE', amount: 39.29 });
  });

  it('credits only what the period paid last kept: a full refund credits nothing, a partial one in proportion', async () => {
    app = await testApp({ now: t('2026-01-01 00:00:00') });
    const { ctx, clock } = app;
    const { merchantId, planId } = await merchantWithPlan(ctx, { price: '30.00' });
    const cheap = await plan(ctx, merchantId, '10.00');
    const full = await subscribe(ctx, merchantId, planId, { userId: 'full' });
    const part = await subscribe(ctx, merchantId, planId, { userId: 'part' });
    const m = await requireMerchant(ctx, merchantId);
    await refundTransaction(ctx, m, { transactionOrderId: full.transactionOrderId, refundAmount: '30.00' });
    await refundTransaction(ctx, m, { transactionOrderId: part.transactionOrderId, refundAmount: '20.00' });
    clock.set(t('2026-01-16 00:00:00'));
    // 16 of 31 days unused: nothing of 0.00 kept; floor(1000 × 16 / 31) = 516 of the 10.00 kept.
    const a = await changePlan(ctx, merchantId, { subscriptionId: full.subscriptionId, planId: cheap, when: 'NOW' });
    expect(a).toMatchObject({ result: 'CHANGED', credit: 0, creditBalance: 0 });
    expect(a.record).toMatchObject({ billingType: 'CHANGE', amount: 10, status: 'SUCCESS' });
    const b = await changePlan(ctx, merchantId, { subscriptionId: part.subscriptionId, planId: cheap, when: 'NOW' });
    expect(b).toMatchObject({ result: 'CHANGED', credit: 5.16, creditBalance: 0 });
    expect(b.record).toMatchObject({ amount: 4.84 });
  });

  it('keeps a credit larger than the price and spends it on the next renewals', async () => {
    app = await testApp({ now: t('2026-01-01 00:00:00') });
    const { ctx, clock } = app;
    const { merchantId, planId } = await merchantWithPlan(ctx, { price: '100.00' });
    const cheap = await plan(ctx, merchantId, '30.00');
    const sub = await subscribe(ctx, merchantId, planId);
    clock.set(t('2026-01-01 00:00:00') + 31 * 86_400_000 * 0.1); // 10% of January used
    const r = await changePlan(ctx, merchantId, { subscriptionId: sub.subscriptionId, planId: cheap, when: 'NOW' });
    expect(r).toMatchObject({ result: 'CHANGED', credit: 90, creditBalance: 60 });
    expect(await subscriptionDetail(ctx, merchantId, sub.subscriptionId)).toMatchObject({
      planId: cheap,
      creditBalance: 60,
    });
    expect(r.record).toMatchObject({ amount: 0 });
    // The first renewal spends 30.00 of the credit, the second the last 30.00, the third charges in full.
    for (let i = 0; i < 3; i++) {
      clock.set((await ctx.store.nextBillingTime(sub.subscriptionId)) as number);
      expect(await runRenewal(ctx)).toMatchObject({ due: 1, succeeded: 1 });
    }
    const renewals = (await records(ctx, sub.subscriptionId))
      .filter((x) => x.billing_type === 'RENEW' && x.status === 'SUCCESS')
      .map((x) => x.amount);
    expect(renewals).toEqual([0, 0, 3000]);
    expect(await subRow(ctx, sub.subscriptionId)).toMatchObject({ credit: 0 });
  });

  it('a sequence of changes charges exactly the prices less the credits granted, plus the credit still carried', async () => {
    app = await testApp({ now: t('2026-01-01 00:00:00') });
    const { ctx, clock } = app;
    const { merchantId, planId } = await merchantWithPlan(ctx, { price: '10.00' });
    const prices = ['49.99', '3.00', '120.00', '0.50', '77.77', '15.00'];
    const planIds = [];
    for (const p of prices)
      planIds.push(await plan(ctx, merchantId, p, { cycleType: p === '120.00' ? 'YEARLY' : 'MONTHLY' }));
    const sub = await subscribe(ctx, merchantId, planId);
    let charged = 0;
    let credits = 0;
    let priceSum = 0;
    let now = t('2026-01-01 00:00:00');
    for (const [i, id] of planIds.entries()) {
      now += (i * 37 + 11) * 3_600_000 + 1234; // uneven steps, always inside the paid period
      clock.set(now);
      const r = await changePlan(ctx, merchantId, { subscriptionId: sub.subscriptionId, planId: id, when: 'NOW' });
      expect(r.result).toBe('CHANGED');
      charged += Math.round((r.record?.amount ?? 0) * 100);
      credits += Math.round(r.credit * 100);
      priceSum += Math.round(Number(prices[i]) * 100);
      expect(r.credit * 100).toBeGreaterThanOrEqual(0);
    }
    const carried = (await subRow(ctx, sub.subscriptionId)).credit as number;
    expect(charged).toBe(priceSum - credits + carried);
    const changes = (await records(ctx, sub.subscriptionId)).filter((x) => x.billing_type === 'CHANGE');
    expect(changes.reduce((a, x) => a + x.amount, 0)).toBe(charged);
    expect((await subRow(ctx, sub.subscriptionId)).total_paid).toBe(1000 + charged);
  });

  it('a declined CHANGE charge leaves the subscription on its old plan, the record FAILED and the new plan’s place free', async () => {
    app = await testApp({ now: t('2026-01-01 00:00:00') });
    const { ctx, clock } = app;
    const { merchantId, planId } = await merchantWithPlan(ctx, { price: '10.00' }, { notifyUrl: CLOSED_NOTIFY_URL });
    const pro = await plan(ctx, merchantId, '30.00', { maxSubscriptions: 1 });
    const sub = await subscribe(ctx, merchantId, planId, { card: '4000000000000341' });
    clock.set(t('2026-01-10 00:00:00'));
    const r = await changePlan(ctx, merchantId, { subscriptionId: sub.subscriptionId, planId: pro, when: 'NOW' });
    expect(r).toMatchObject({
      result: 'DECLINED',
      planId,
      failReason: 'card_declined',
      nextBillingTime: '2026-02-01 00:00:00',
    });
    expect(r.record).toMatchObject({ billingType: 'CHANGE', status: 'FAILED' });
    expect(await subRow(ctx, sub.subscriptionId)).toMatchObject({
      plan_id: planId,
      amount: 1000,
      anchor_time: t('2026-01-01 00:00:00'),
      status: 'ACTIVE',
      failed_count: 1,
      credit: 0,
    });
    expect([await planCount(ctx, planId), await planCount(ctx, pro)]).toEqual([1, 0]);
    expect((await events(app, sub.subscriptionId)).map((e) => e.eventType)).not.toContain('PLAN_CHANGED');
  });

  it('a declined CHANGE moves no date: paused and resumed before the period ends, the renewal stays at the old time', async () => {
    app = await testApp({ now: t('2026-01-01 00:00:00') });
    const { ctx, clock } = app;
    const { merchantId, planId } = await merchantWithPlan(ctx, { price: '10.00' }, { notifyUrl: CLOSED_NOTIFY_URL });
    const pro = await plan(ctx, merchantId, '30.00');
    const sub = await subscribe(ctx, merchantId, planId, { card: '4000000000000341' });
    clock.set(t('2026-01-11 00:00:00'));
    const r = await changePlan(ctx, merchantId, { subscriptionId: sub.subscriptionId, planId: pro, when: 'NOW' });
    expect(r.result).toBe('DECLINED');
    clock.set(t('2026-01-12 00:00:00'));
    await pauseSubscription(ctx, merchantId, sub.subscriptionId);
    clock.set(t('2026-01-15 00:00:00'));
    await resumeSubscription(ctx, merchantId, sub.subscriptionId);
    // SPEC §6: the RENEW goes back to the old nextBillingTime, which has not passed.
    expect(await subscriptionDetail(ctx, merchantId, sub.subscriptionId)).toMatchObject({
      nextBillingTime: '2026-02-01 00:00:00',
    });
    expect(await subRow(ctx, sub.subscriptionId)).toMatchObject({ anchor_time: t('2026-01-01 00:00:00') });
    expect(await runRenewal(ctx)).toMatchObject({ due: 0 });
  });

  it('refuses what the rules forbid: another merchant’s plan 1007, an inactive plan 1009, a PAUSED subscription 1008, the current plan 1008', async () => {
    app = await testApp();
    const { ctx } = app;
    const { merchantId, planId } = await merchantWithPlan(ctx);
    const other = await merchantWithPlan(ctx);
    const off = await plan(ctx, merchantId, '5.00');
    await rowsOf(ctx).run("UPDATE plans SET status = 'INACTIVE' WHERE id = ?", off);
    const sub = await subscribe(ctx, merchantId, planId);
    const change = (p: string, when = 'NOW') =>
      codeOf(changePlan(ctx, merchantId, { subscriptionId: sub.subscriptionId, planId: p, when }));
    expect(await change(other.planId)).toBe('1007');
    expect(await change(off)).toBe('1009');
    expect(await change(off, 'PERIOD_END')).toBe('1009');
    expect(await change(planId)).toBe('1008');
    expect(await change(planId, 'SOON')).toBe('1001');
    await rowsOf(ctx).run("UPDATE subscriptions SET status = 'PAUSED' WHERE id = ?", sub.subscriptionId);
    expect(await change(await plan(ctx, merchantId, '7.00'))).toBe('1008');
  });
});

describe('plan change interrupted', () => {
  it('a change whose request died after the channel charged is finished by the renewal run once its lease ran out, charged once', async () => {
    app = await testApp({ now: t('2026-01-01 00:00:00') });
    const { ctx, clock } = app;
    const { merchantId, planId } = await merchantWithPlan(ctx, { price: '10.00' }, { notifyUrl: CLOSED_NOTIFY_URL });
    const pro = await plan(ctx, merchantId, '30.00');
    const other = await plan(ctx, merchantId, '50.00');
    const sub = await subscribe(ctx, merchantId, planId);
    const real = ctx.channel;
    // The channel charges, then the process "dies" before the outcome is recorded.
    (ctx as { channel: Channel }).channel = {
      name: real.name,
      charge: async (req) => {
        await real.charge(req);
        throw new Error('connection reset');
      },
      completeAction: (ref, passed) => real.completeAction(ref, passed),
      refund: (req) => real.refund(req),
    };
    clock.set(t('2026-01-16 00:00:00'));
    await expect(
      changePlan(ctx, merchantId, { subscriptionId: sub.subscriptionId, planId: pro, when: 'NOW' }),
    ).rejects.toThrow('connection reset');
    (ctx as { channel: Channel }).channel = real;
    expect((await records(ctx, sub.subscriptionId)).find((r) => r.billing_type === 'CHANGE')?.status).toBe('PENDING');
    expect(
      await codeOf(changePlan(ctx, merchantId, { subscriptionId: sub.subscriptionId, planId: other, when: 'NOW' })),
    ).toBe('1008');
    clock.set(t('2026-01-16 00:09:00'));
    await runRenewal(ctx);
    expect((await records(ctx, sub.subscriptionId)).find((r) => r.billing_type === 'CHANGE')?.status).toBe('PENDING');
    clock.set(t('2026-01-16 00:10:01'));
    await runRenewal(ctx);
    expect((await records(ctx, sub.subscriptionId)).find((r) => r.billing_type === 'CHANGE')).toMatchObject({
      status: 'SUCCESS',
      amount: 2484,
    });
    expect(await subRow(ctx, sub.subscriptionId)).toMatchObject({ plan_id: pro, total_paid: 1000 + 2484 });
    const ledger = await rowsOf(ctx).get(
      "SELECT count(*) AS n FROM sandbox_charges WHERE kind = 'charge' AND amount = 2484",
    );
    expect(ledger).toEqual({ n: 1 });
    expect((await events(app, sub.subscriptionId)).map((e) => e.eventType)).toContain('PLAN_CHANGED');
  });
});

describe('plan change and cancel', () => {
  it('a subscription cancelled while its CHANGE charge runs: the charge counts, the plan does not move, places and card are released', async () => {
    app = await testApp({ now: t('2026-01-01 00:00:00') });
    const { ctx, clock } = app;
    const { merchantId, planId } = await merchantWithPlan(ctx, { price: '10.00' });
    const pro = await plan(ctx, merchantId, '30.00');
    const sub = await subscribe(ctx, merchantId, planId);
    const real = ctx.channel;
    (ctx as { channel: Channel }).channel = {
      name: real.name,
      charge: async (req) => {
        const r = await real.charge(req);
        await cancelSubscription(ctx, merchantId, sub.subscriptionId);
        return r;
      },
      completeAction: (ref, passed) => real.completeAction(ref, passed),
      refund: (req) => real.refund(req),
    };
    clock.set(t('2026-01-16 00:00:00'));
    const r = await changePlan(ctx, merchantId, { subscriptionId: sub.subscriptionId, planId: pro, when: 'NOW' });
    (ctx as { channel: Channel }).channel = real;
    expect(r).toMatchObject({ result: 'ENDED', planId });
    expect(r.record).toMatchObject({ billingType: 'CHANGE', status: 'SUCCESS' });
    expect(await subRow(ctx, sub.subscriptionId)).toMatchObject({
      status: 'CANCELLED',
      plan_id: planId,
      card_id: null,
      total_paid: 1000 + 2484,
    });
    expect([await planCount(ctx, planId), await planCount(ctx, pro)]).toEqual([0, 0]);
    expect(await rowsOf(ctx).get('SELECT count(*) AS n FROM cards')).toEqual({ n: 0 });
  });
});

describe('plan change concurrency', () => {
  it('two concurrent changes of one subscription: exactly one wins, the other is 1008', async () => {
    app = await testApp();
    const { ctx } = app;
    const { merchantId, planId } = await merchantWithPlan(ctx);
    const a = await plan(ctx, merchantId, '20.00');
    const b = await plan(ctx, merchantId, '30.00');
    const sub = await subscribe(ctx, merchantId, planId);
    // The two intents race; the winner's charge is held until the loser has been answered, so
    // the winner cannot finish first and leave the loser a second, legitimate change.
    const channel = ctx.channel as { charge: typeof ctx.channel.charge };
    const charge = channel.charge.bind(ctx.channel);
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    channel.charge = async (req) => {
      await held;
      return charge(req);
    };
    const changes = [a, b].map((p) =>
      codeOf(changePlan(ctx, merchantId, { subscriptionId: sub.subscriptionId, planId: p, when: 'NOW' })),
    );
    expect(await Promise.race(changes)).toBe('1008');
    release();
    const results = await Promise.all(changes);
    expect(results.filter((c) => c === undefined)).toHaveLength(1);
    expect(results.filter((c) => c === '1008')).toHaveLength(1);
    expect((await records(ctx, sub.subscriptionId)).filter((r) => r.billing_type === 'CHANGE')).toHaveLength(1);
    expect((await planCount(ctx, a)) + (await planCount(ctx, b))).toBe(1);
    expect(await planCount(ctx, planId)).toBe(0);
  });

  it('maxSubscriptions of the target plan holds under concurrent changes and subscribes', async () => {
    app = await testApp();
    const { ctx } = app;
    const { merchantId, planId } = await merchantWithPlan(ctx);
    const scarce = await plan(ctx, merchantId, '20.00', { maxSubscriptions: 2 });
    const subs = [];
    for (let i = 0; i < 4; i++) subs.push(await subscribe(ctx, merchantId, planId, { userId: `u${i}` }));
    const attempts = [
      ...subs.map((s, i) =>
        codeOf(
          changePlan(ctx, merchantId, {
            subscriptionId: s.subscriptionId,
            planId: scarce,
            when: i % 2 ? 'NOW' : 'PERIOD_END',
          }),
        ),
      ),
      ...[0, 1].map((i) =>
        subscribe(ctx, merchantId, scarce, { userId: `new${i}` }).then(
          () => undefined,
          (e: unknown) => (isPaygateError(e) ? e.code : 'thrown'),
        ),
      ),
    ];
    const codes = await Promise.all(attempts);
    expect(codes.filter((c) => c === undefined)).toHaveLength(2);
    expect(codes.filter((c) => c === '1009')).toHaveLength(4);
    expect(await planCount(ctx, scarce)).toBe(2);
  });
});

describe('plan change at period end', () => {
  it('the renewal run charges the new plan at the period end and anchors its calendar there', async () => {
    app = await testApp({ now: t('2026-01-15 09:00:00') });
    const { ctx, clock } = app;
    const { merchantId, planId } = await merchantWithPlan(ctx, { price: '9.99' }, { notifyUrl: CLOSED_NOTIFY_URL });
    const weekly = await plan(ctx, merchantId, '2.99', { cycleType: 'WEEKLY' });
    const sub = await subscribe(ctx, merchantId, planId);
    clock.set(t('2026-01-20 12:00:00'));
    const r = await changePlan(ctx, merchantId, { subscriptionId: sub.subscriptionId, planId: weekly });
    expect(r).toMatchObject({
      when: 'PERIOD_END',
      result: 'SCHEDULED',
      planId,
      pendingPlanId: weekly,
      credit: 0,
      nextBillingTime: '2026-02-15 09:00:00',
    });
    expect([await planCount(ctx, planId), await planCount(ctx, weekly)]).toEqual([1, 1]);
    expect(await subscriptionDetail(ctx, merchantId, sub.subscriptionId)).toMatchObject({
      planId,
      pendingPlanId: weekly,
    });
    expect(await subRow(ctx, sub.subscriptionId)).toMatchObject({ plan_id: planId, amount: 999 });
    clock.set(t('2026-02-15 09:00:00'));
    expect(await runRenewal(ctx)).toMatchObject({ due: 1, succeeded: 1 });
    expect(await subRow(ctx, sub.subscriptionId)).toMatchObject({
      plan_id: weekly,
      amount: 299,
      cycle_type: 'WEEKLY',
      anchor_time: t('2026-02-15 09:00:00'),
      pending_plan_id: null,
    });
    const renew = (await records(ctx, sub.subscriptionId)).filter((x) => x.billing_type === 'RENEW');
    expect(renew.map((x) => [x.status, x.amount])).toEqual([
      ['SUCCESS', 299],
      ['PENDING', 299],
    ]);
    expect((await subscriptionDetail(ctx, merchantId, sub.subscriptionId)).nextBillingTime).toBe('2026-02-22 09:00:00');
    expect([await planCount(ctx, planId), await planCount(ctx, weekly)]).toEqual([0, 1]);
    expect((await events(app, sub.subscriptionId)).map((e) => [e.eventType, e.planId])).toEqual([
      ['RENEW_SUCCEEDED', weekly],
      ['PLAN_CHANGED', weekly],
    ]);
  });

  it('a plan chosen again while the retry of the changing renewal waits is the one that retry starts, each place counted once', async () => {
    app = await testApp({ now: t('2026-01-01 00:00:00') });
    const { ctx, clock } = app;
    const { merchantId, planId } = await merchantWithPlan(ctx, { price: '10.00' }, { notifyUrl: CLOSED_NOTIFY_URL });
    const pro = await plan(ctx, merchantId, '20.00');
    const max = await plan(ctx, merchantId, '30.00');
    // The card's first attempt at each renewal is declined, its first retry (a day later) approved.
    const sub = await subscribe(ctx, merchantId, planId, { card: '4000000000000036' });
    await changePlan(ctx, merchantId, { subscriptionId: sub.subscriptionId, planId: pro });
    clock.set(t('2026-02-01 00:00:00'));
    expect(await runRenewal(ctx)).toMatchObject({ due: 1, failed: 1 });
    await changePlan(ctx, merchantId, { subscriptionId: sub.subscriptionId, planId: max });
    expect((await records(ctx, sub.subscriptionId)).at(-1)).toMatchObject({
      billing_type: 'RETRY',
      plan_id: max,
      amount: 3000,
    });
    clock.set(t('2026-02-02 00:00:00'));
    expect(await runRenewal(ctx)).toMatchObject({ due: 1, succeeded: 1 });
    expect(await subRow(ctx, sub.subscriptionId)).toMatchObject({ plan_id: max, amount: 3000, pending_plan_id: null });
    expect([await planCount(ctx, planId), await planCount(ctx, pro), await planCount(ctx, max)]).toEqual([0, 0, 1]);
  });

  it('a plan cannot be chosen again while the charge that starts the pending one is under way (1008)', async () => {
    app = await testApp({ now: t('2026-01-01 00:00:00') });
    const { ctx, clock } = app;
    const { merchantId, planId } = await merchantWithPlan(ctx, { price: '10.00' });
    const pro = await plan(ctx, merchantId, '20.00');
    const max = await plan(ctx, merchantId, '30.00');
    const sub = await subscribe(ctx, merchantId, planId);
    await changePlan(ctx, merchantId, { subscriptionId: sub.subscriptionId, planId: pro });
    clock.set(t('2026-02-01 00:00:00'));
    // A run has claimed the renewal and is charging it (its transaction written, no outcome yet).
    const renew = (await records(ctx, sub.subscriptionId)).at(-1) as { id: string };
    await rowsOf(ctx).run("UPDATE billing_records SET transaction_id = 'txn-in-flight' WHERE id = ?", renew.id);
    const again = changePlan(ctx, merchantId, { subscriptionId: sub.subscriptionId, planId: max });
    expect(await codeOf(again)).toBe('1008');
    expect(await subRow(ctx, sub.subscriptionId)).toMatchObject({ pending_plan_id: pro });
    expect([await planCount(ctx, pro), await planCount(ctx, max)]).toEqual([1, 0]);
  });

  it('asking for the current plan withdraws a pending change and gives its place back', async () => {
    app = await testApp();
    const { ctx } = app;
    const { merchantId, planId } = await merchantWithPlan(ctx, { price: '9.99' });
    const pro = await plan(ctx, merchantId, '19.99');
    const sub = await subscribe(ctx, merchantId, planId);
    await changePlan(ctx, merchantId, { subscriptionId: sub.subscriptionId, planId: pro });
    expect((await records(ctx, sub.subscriptionId)).find((x) => x.status === 'PENDING')?.amount).toBe(1999);
    const r = await changePlan(ctx, merchantId, { subscriptionId: sub.subscriptionId, planId, when: 'PERIOD_END' });
    expect(r.result).toBe('UNSCHEDULED');
    expect(r.pendingPlanId).toBeUndefined();
    expect((await records(ctx, sub.subscriptionId)).find((x) => x.status === 'PENDING')?.amount).toBe(999);
    expect(await planCount(ctx, pro)).toBe(0);
  });
});
