import { rowsOf } from '../helpers/rows.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createTransaction } from '../../src/services/transactions/index.js';
import { completeThreeDs } from '../../src/services/pages.js';
import { cancelSubscription } from '../../src/services/subscriptions/index.js';
import { requireMerchant } from '../../src/services/merchants.js';
import { createPlan } from '../../src/services/plans.js';
import { billingTime, trialEnd } from '../../src/domain/calendar.js';
import { testApp, testMerchant, type TestApp, TEST_NOW } from '../helpers/ctx.js';
import { cardYear } from '../helpers/cards.js';

let app: TestApp;
afterEach(async () => app?.close());

const card = (cardNumber = '4242424242424242') =>
  JSON.stringify({ cardNumber, month: '12', year: cardYear(TEST_NOW), cvv: '123' });
let seq = 0;

async function setup(plan: Record<string, unknown> = {}) {
  app = await testApp({ zone: 'America/New_York' });
  const ctx = app.ctx;
  const m = await requireMerchant(ctx, (await testMerchant(ctx)).merchantId);
  const p = await createPlan(ctx, m.id, {
    planName: 'Pro',
    price: '9.99',
    currency: 'USD',
    cycleType: 'MONTHLY',
    cycleLength: 1,
    ...plan,
  });
  const subscribe = (over: Record<string, unknown> = {}) => {
    seq++;
    return createTransaction(ctx, m, {
      requestId: `r${seq}`,
      relationId: `s${seq}`,
      paymentType: 'SUBSCRIPTION',
      planId: p.planId,
      userId: 'u1',
      payAmount: '1.00',
      currency: 'EUR',
      cardInfo: card(),
      notifyUrl: 'https://shop.example/subs',
      ...over,
    });
  };
  return { ctx, m, p, subscribe };
}

const one = async <T>(sql: string, ...a: unknown[]) => (await rowsOf(app.ctx).get(sql, ...a)) as T;
const all = async <T>(sql: string, ...a: unknown[]) => (await rowsOf(app.ctx).all(sql, ...a)) as T[];

interface Sub {
  id: string;
  status: string;
  anchor_time: number;
  start_time: number;
  paid_through: number | null;
  billing_count: number;
  failed_count: number;
  total_paid: number;
  card_id: string | null;
  notify_url: string | null;
  end_time: number | null;
}
interface Rec {
  billing_type: string;
  status: string;
  amount: number;
  scheduled_time: number;
  cycle_index: number;
  fail_reason: string | null;
  transaction_id: string | null;
}

describe('SUBSCRIPTION first charge', () => {
  it('approved without trial: ACTIVE, plan price overrides payAmount, INITIAL SUCCESS, RENEW PENDING at cycle 1', async () => {
    const { ctx, p, subscribe } = await setup();
    const v = await subscribe();
    expect(v).toMatchObject({ status: '200000', payAmount: '9.99', currency: 'USD' });
    expect(v.subscriptionId).toMatch(/^sub_/);
    expect(v.subscriptionCode).toBeTruthy();
    const s = await one<Sub>('SELECT * FROM subscriptions');
    const now = ctx.clock.now();
    const firstRenew = billingTime(now, { cycleType: 'MONTHLY', cycleLength: 1 }, 1, ctx.zone);
    expect(s).toMatchObject({
      status: 'ACTIVE',
      anchor_time: now,
      start_time: now,
      paid_through: firstRenew,
      billing_count: 1,
      failed_count: 0,
      total_paid: 999,
      notify_url: 'https://shop.example/subs',
    });
    const recs = await all<Rec>('SELECT * FROM billing_records ORDER BY created_at, billing_type');
    expect(recs.map((r) => [r.billing_type, r.status, r.amount, r.cycle_index])).toEqual([
      ['INITIAL', 'SUCCESS', 999, 0],
      ['RENEW', 'PENDING', 999, 1],
    ]);
    expect(recs[1]?.scheduled_time).toBe(firstRenew);
    expect(recs[0]?.transaction_id).toBe(v.transactionOrderId);
    expect((await one<{ n: number }>('SELECT current_subscriptions AS n FROM plans WHERE id = ?', p.planId)).n).toBe(1);
  });

  it('vaults the card encrypted with display fields, and never a CVV', async () => {
    const { ctx, subscribe } = await setup();
    await subscribe();
    const c = await one<Record<string, unknown>>('SELECT * FROM cards');
    expect(c).toMatchObject({ bin: '424242', last4: '4242', brand: 'Visa', exp_month: 12, exp_year: 2030 });
    expect(String(c.pan_enc)).not.toContain('4242424242424242');
    expect(ctx.vault.decrypt(String(c.pan_enc))).toBe('4242424242424242');
    expect(Object.keys(c).some((k) => /cvv|cvc/i.test(k))).toBe(false);
  });

  it('PAY never vaults a card', async () => {
    const { ctx, m } = await setup();
    await createTransaction(ctx, m, {
      requestId: 'p',
      relationId: 'p',
      paymentType: 'PAY',
      payAmount: '1.00',
      currency: 'USD',
      cardInfo: card(),
    });
    expect((await one<{ n: number }>('SELECT count(*) AS n FROM cards')).n).toBe(0);
  });

  it('trial: INITIAL is a zero-amount check; anchor and first RENEW at the trial end, cycle_index 0', async () => {
    const { ctx, subscribe } = await setup({ trialDays: 14 });
    const v = await subscribe();
    expect(v).toMatchObject({ status: '200000', payAmount: '0.00' });
    const end = trialEnd(ctx.clock.now(), 14, ctx.zone);
    expect(await one<Sub>('SELECT * FROM subscriptions')).toMatchObject({
      status: 'ACTIVE',
      anchor_time: end,
      paid_through: end,
      billing_count: 1,
      total_paid: 0,
    });
    const recs = await all<Rec>('SELECT * FROM billing_records ORDER BY created_at, billing_type');
    expect(recs.map((r) => [r.billing_type, r.status, r.amount, r.cycle_index, r.scheduled_time])).toEqual([
      ['INITIAL', 'SUCCESS', 0, 0, ctx.clock.now()],
      ['RENEW', 'PENDING', 999, 0, end],
    ]);
    expect((await one<{ amount: number }>('SELECT amount FROM sandbox_charges')).amount).toBe(0);
  });

  it('a trial check can still decline', async () => {
    const { subscribe } = await setup({ trialDays: 7 });
    const v = await subscribe({ cardInfo: card('4000000000000002') });
    expect(v).toMatchObject({ status: '300000', failReason: 'card_declined' });
    expect((await one<Sub>('SELECT * FROM subscriptions')).status).toBe('EXPIRED');
  });

  it('declined: EXPIRED, INITIAL FAILED, card deleted, place released, ids still returned', async () => {
    const { p, subscribe } = await setup({ maxSubscriptions: 1 });
    const v = await subscribe({ cardInfo: card('4000000000009995') });
    expect(v).toMatchObject({ status: '300000', failReason: 'insufficient_funds' });
    expect(v.subscriptionId).toBeTruthy();
    expect(v.subscriptionCode).toBeTruthy();
    expect(await one<Sub>('SELECT * FROM subscriptions')).toMatchObject({
      status: 'EXPIRED',
      card_id: null,
      failed_count: 1,
      billing_count: 0,
    });
    expect(
      (await all<Rec>('SELECT * FROM billing_records')).map((r) => [r.billing_type, r.status, r.fail_reason]),
    ).toEqual([['INITIAL', 'FAILED', 'insufficient_funds']]);
    expect((await one<{ n: number }>('SELECT count(*) AS n FROM cards')).n).toBe(0);
    expect((await one<{ n: number }>('SELECT current_subscriptions AS n FROM plans WHERE id = ?', p.planId)).n).toBe(0);
    expect((await subscribe()).status).toBe('200000'); // the released place is free again
  });

  it('3DS: INCOMPLETE with INITIAL PENDING and no RENEW; Complete → ACTIVE with RENEW PENDING', async () => {
    const { ctx, subscribe } = await setup();
    const v = await subscribe({ cardInfo: card('4000002500003155') });
    expect(v.status).toBe('100040');
    expect((await one<Sub>('SELECT * FROM subscriptions')).status).toBe('INCOMPLETE');
    expect((await all<Rec>('SELECT * FROM billing_records')).map((r) => [r.billing_type, r.status])).toEqual([
      ['INITIAL', 'PENDING'],
    ]);
    const token = String(v.url).split('/').pop() ?? '';
    const out = await completeThreeDs(ctx, token, true);
    expect(out.result).toBe('succeeded');
    expect(await one<Sub>('SELECT * FROM subscriptions')).toMatchObject({ status: 'ACTIVE', billing_count: 1 });
    expect(
      (await all<Rec>('SELECT * FROM billing_records ORDER BY created_at, billing_type')).map((r) => [
        r.billing_type,
        r.status,
      ]),
    ).toEqual([
      ['INITIAL', 'SUCCESS'],
      ['RENEW', 'PENDING'],
    ]);
  });

  it('cancelled while its 3DS Complete is with the channel: the approved charge is recorded (SPEC §6), the subscription stays CANCELLED', async () => {
    const { ctx, m, subscribe } = await setup();
    const v = await subscribe({ cardInfo: card('4000002500003155') });
    const real = ctx.channel;
    ctx.channel = {
      ...real,
      completeAction: async (ref, passed) => {
        await cancelSubscription(ctx, m.id, { subscriptionId: v.subscriptionId });
        return real.completeAction(ref, passed);
      },
    };
    expect((await completeThreeDs(ctx, String(v.url).split('/').pop() ?? '', true)).result).toBe('succeeded');
    expect(await one('SELECT status, amount FROM transactions')).toEqual({ status: 200000, amount: 999 });
    expect((await one<Sub>('SELECT * FROM subscriptions')).status).toBe('CANCELLED');
    const payments = await all<{ payload: string }>("SELECT payload FROM outbox_events WHERE event_type = 'PAYMENT'");
    expect(payments.map((e) => JSON.parse(e.payload).status)).toEqual(['200000']);
  });

  it('cancelled while its first charge is with the channel: the charge completes and is recorded', async () => {
    const { ctx, m, subscribe } = await setup();
    const real = ctx.channel;
    let subscriptionId = '';
    ctx.channel = {
      ...real,
      charge: async (req) => {
        subscriptionId = (await one<Sub>('SELECT * FROM subscriptions')).id;
        await cancelSubscription(ctx, m.id, { subscriptionId });
        return real.charge(req);
      },
    };
    const v = await subscribe();
    expect(v.status).toBe('200000');
    expect(await one('SELECT status FROM transactions')).toEqual({ status: 200000 });
    expect((await one<Sub>('SELECT * FROM subscriptions')).status).toBe('CANCELLED');
  });

  it('3DS Fail → EXPIRED with a SUBSCRIPTION_EXPIRED callback and the PAYMENT callback', async () => {
    const { ctx, subscribe } = await setup();
    const v = await subscribe({ cardInfo: card('4000000000003220') });
    const out = await completeThreeDs(ctx, String(v.url).split('/').pop() ?? '', false);
    expect(out).toMatchObject({ result: 'failed', failReason: 'authentication_failed' });
    expect((await one<Sub>('SELECT * FROM subscriptions')).status).toBe('EXPIRED');
    const events = await all<{ event_type: string; notify_url: string; payload: string }>(
      'SELECT * FROM outbox_events ORDER BY seq',
    );
    expect(events.map((e) => e.event_type).sort()).toEqual(['PAYMENT', 'SUBSCRIPTION_EXPIRED']);
    expect(events.every((e) => e.notify_url === 'https://shop.example/subs')).toBe(true);
    const pay = JSON.parse(events.find((e) => e.event_type === 'PAYMENT')?.payload ?? '{}');
    expect(pay).toMatchObject({
      status: '300000',
      failReason: 'authentication_failed',
      subscriptionId: v.subscriptionId,
      subscriptionCode: v.subscriptionCode,
    });
  });

  it('inactive plan → 1009, unknown plan → 1007, missing planId/userId → 1001; nothing written', async () => {
    const { ctx, p, subscribe } = await setup();
    await rowsOf(ctx).run("UPDATE plans SET status = 'INACTIVE'");
    await expect(subscribe()).rejects.toMatchObject({ code: '1009' });
    await expect(subscribe({ planId: 'pln_nope' })).rejects.toMatchObject({ code: '1007' });
    await expect(subscribe({ planId: undefined })).rejects.toMatchObject({ code: '1001', field: 'planId' });
    await expect(subscribe({ userId: '' })).rejects.toMatchObject({ code: '1001', field: 'userId' });
    await expect(subscribe({ cardInfo: undefined })).rejects.toMatchObject({ code: '1001', field: 'cardInfo' });
    expect((await one<{ n: number }>('SELECT count(*) AS n FROM subscriptions')).n).toBe(0);
    expect((await one<{ n: number }>('SELECT count(*) AS n FROM transactions')).n).toBe(0);
    expect((await one<{ n: number }>('SELECT current_subscriptions AS n FROM plans WHERE id = ?', p.planId)).n).toBe(0);
  });

  it('/subscription/create style: paymentType may be left out with defaultPaymentType', async () => {
    const { ctx, m, p } = await setup();
    const v = await createTransaction(
      ctx,
      m,
      { requestId: 'd', relationId: 'd', planId: p.planId, userId: 'u', cardInfo: card() },
      { defaultPaymentType: 'SUBSCRIPTION' },
    );
    expect(v.subscriptionId).toBeTruthy();
  });

  it('50 concurrent subscribes on a plan of max 10 → exactly 10', async () => {
    const { p, subscribe } = await setup({ maxSubscriptions: 10 });
    const results = await Promise.allSettled(Array.from({ length: 50 }, () => subscribe()));
    const ok = results.filter((r) => r.status === 'fulfilled');
    const refused = results.filter((r) => r.status === 'rejected');
    expect(ok).toHaveLength(10);
    expect(refused.every((r) => (r as PromiseRejectedResult).reason.code === '1009')).toBe(true);
    expect((await one<{ n: number }>("SELECT count(*) AS n FROM subscriptions WHERE status = 'ACTIVE'")).n).toBe(10);
    expect((await one<{ n: number }>('SELECT current_subscriptions AS n FROM plans WHERE id = ?', p.planId)).n).toBe(
      10,
    );
    expect((await one<{ n: number }>('SELECT count(*) AS n FROM sandbox_charges')).n).toBe(10);
  });
});
