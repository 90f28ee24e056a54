import { DateTime } from 'luxon';
import { type StripeShop, stripeShop } from '../helpers/stripe-shop.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paygateAsync } from '../helpers/cli-async.js';
import { answerChallenge } from '../helpers/stripe.js';
import type { StandinAccount, StripeStandin } from '../helpers/stripe-standin/index.js';
import { client, createMerchant, raw, type Served, type TestMerchant } from '../helpers/serve.js';

/**
 * A Stripe merchant's trials (SetupIntents), card updates (a new PaymentMethod saved on the
 * subscription's Customer by a SetupIntent) and immediate plan changes (an off-session
 * PaymentIntent on the stored card), through `serve` and `paygate renew` against the stand-in.
 */
let stripe: StripeStandin;
let srv: Served;
let db: string;
let shop: StripeShop;
let env: Record<string, string>;
let acct: StandinAccount;
let m: TestMerchant;
let n = 0;
const used = new Set<string>();

const YEAR = String(new Date().getUTCFullYear() + 2);
const card = (cardNumber: string) => {
  used.add(cardNumber);
  return JSON.stringify({ holderName: 'Ada Lovelace', cardNumber, month: '12', year: YEAR, cvv: '123' });
};
const cli = (args: string[]) => paygateAsync(['--db', db, ...args], env);
const at = (d: { days?: number; minutes?: number }) => DateTime.utc().plus(d).toFormat('yyyy-MM-dd HH:mm:ss');
const rows = <T>(sql: string, ...args: unknown[]): Promise<T[]> => shop.rows.all<T>(sql, ...args);
const one = async <T>(sql: string, ...args: unknown[]): Promise<T> => (await await rows<T>(sql, ...args))[0] as T;

/** When this suite's shop was made: on PostgreSQL, the cluster's log is read from here on. */
let started: Date;

beforeAll(async () => {
  started = new Date();
  shop = await stripeShop({ prefix: 'paygate-stripe-cards-', name: 'Stripe Cards', webhookSecret: true });
  ({ stripe, acct, db, env, m, srv } = shop);
});
afterAll(() => shop?.stop());

const c = () => client(srv.url, m);

async function plan(price: string, trialDays = 0): Promise<string> {
  n++;
  const r = await c().post('/subscription/plan/create', {
    planName: `Plan ${n}`,
    price,
    currency: 'USD',
    cycleType: 'MONTHLY',
    cycleLength: 1,
    ...(trialDays ? { trialDays } : {}),
  });
  expect(r.body.rtn_code, r.text).toBe('0000');
  return r.body.data.planId as string;
}

async function subscribe(planId: string, cardNumber: string) {
  n++;
  const r = await c().post('/subscription/create', {
    requestId: `sc-${n}`,
    relationId: `sc-${n}`,
    planId,
    userId: `u-${n}`,
    cardInfo: card(cardNumber),
  });
  expect(r.body.rtn_code, r.text).toBe('0000');
  return r.body.data as { subscriptionId: string; status: string; transactionOrderId: string; url?: string };
}

type CardRow = {
  id: string;
  channel: string;
  pan_enc: string | null;
  last4: string;
  stripe_customer_id: string | null;
  stripe_payment_method_id: string | null;
};
const cardOf = async (subId: string): Promise<CardRow | undefined> =>
  (await rows<CardRow>('SELECT c.* FROM cards c JOIN subscriptions s ON s.card_id = c.id WHERE s.id = ?', subId))[0];
const subStatus = async (subId: string) =>
  await one<{ status: string; plan_id: string }>('SELECT status, plan_id FROM subscriptions WHERE id = ?', subId);
const txn = async (id: string) =>
  await one<{
    status: number;
    fail_reason: string | null;
    channel: string;
    channel_ref: string | null;
    payment_type: string;
  }>('SELECT status, fail_reason, channel, channel_ref, payment_type FROM transactions WHERE id = ?', id);
const setupsOf = (txnId: string) =>
  [...acct.state.setupIntents.values()].filter((s) => s.metadata.paygate_transaction === txnId);
const intentsOn = (pmId: string | null | undefined) =>
  [...acct.state.intents.values()].filter((i) => i.paymentMethodId === pmId);

/** The shopper's way through paygate's 3DS page to Stripe's challenge and back (the stand-in's page). */
async function handOver(url: string, choice: 'pass' | 'fail'): Promise<Response> {
  const hand = await raw(url);
  expect(hand.status).toBe(303);
  const stripeUrl = hand.headers.get('location') ?? '';
  expect(stripeUrl.startsWith(`${stripe.url}/3ds/seti_`)).toBe(true);
  return answerChallenge(stripeUrl, choice);
}

describe('a plan with a trial for a Stripe merchant: the card is saved by a SetupIntent, nothing charged', () => {
  let trialPlan: string;
  beforeAll(async () => {
    trialPlan = await plan('9.99', 14);
  });

  it("4242…: 200000 ACTIVE; one SetupIntent (usage off_session) and no charge; the card row holds Stripe's ids, no number; the first renewal charges off-session through a PaymentIntent", async () => {
    const sub = await subscribe(trialPlan, '4242424242424242');
    expect(sub.status).toBe('200000');
    expect((await subStatus(sub.subscriptionId)).status).toBe('ACTIVE');
    const t = await txn(sub.transactionOrderId);
    expect(t).toMatchObject({ status: 200000, channel: 'stripe', payment_type: 'SUBSCRIPTION' });
    expect(t.channel_ref).toMatch(/^seti_/);
    const [si] = setupsOf(sub.transactionOrderId);
    expect(si).toMatchObject({ id: t.channel_ref, status: 'succeeded', usage: 'off_session' });
    const kept = await cardOf(sub.subscriptionId);
    expect(kept).toMatchObject({
      channel: 'stripe',
      pan_enc: null,
      last4: '4242',
      stripe_customer_id: si?.customerId,
      stripe_payment_method_id: si?.paymentMethodId,
    });
    expect(intentsOn(si?.paymentMethodId)).toHaveLength(0);
    const keys = stripe.requests
      .filter((q) => q.idempotencyKey?.startsWith(`paygate:${sub.transactionOrderId}:0:`))
      .map((q) => q.idempotencyKey?.split(':').at(-1));
    expect(keys).toEqual(['payment_method', 'customer', 'setup_intent', 'setup_confirm']);

    const r = await cli(['--json', 'renew', '--at', at({ days: 15 })]);
    expect(r.status, r.stderr).toBe(0);
    const renewal = await rows<{ status: string; amount: number; channel_ref: string }>(
      "SELECT r.status, r.amount, t.channel_ref FROM billing_records r JOIN transactions t ON t.id = r.transaction_id WHERE r.subscription_id = ? AND r.billing_type = 'RENEW'",
      sub.subscriptionId,
    );
    expect(renewal).toEqual([{ status: 'SUCCESS', amount: 999, channel_ref: expect.stringMatching(/^pi_/) }]);
    expect(intentsOn(si?.paymentMethodId)).toEqual([
      expect.objectContaining({
        id: renewal[0]?.channel_ref,
        offSession: true,
        amount: 999,
        status: 'succeeded',
        customerId: si?.customerId,
      }),
    ]);
  });

  it('a declined card: 300000 card_declined, the subscription EXPIRED and its card row gone', async () => {
    const sub = await subscribe(trialPlan, '4000000000000002');
    expect(sub).toMatchObject({ status: '300000' });
    expect(await txn(sub.transactionOrderId)).toMatchObject({ status: 300000, fail_reason: 'card_declined' });
    expect((await subStatus(sub.subscriptionId)).status).toBe('EXPIRED');
    expect(await cardOf(sub.subscriptionId)).toBeUndefined();
    expect(setupsOf(sub.transactionOrderId)[0]).toMatchObject({
      status: 'requires_payment_method',
      lastError: { code: 'card_declined' },
    });
  });

  it("3DS: 100040 with paygate's page, handed over to Stripe's challenge for the SetupIntent and back; then renewals succeed off-session", async () => {
    const sub = await subscribe(trialPlan, '4000002500003155');
    expect(sub.status).toBe('100040');
    expect((await subStatus(sub.subscriptionId)).status).toBe('INCOMPLETE');
    const back = await handOver(sub.url ?? '', 'pass');
    expect(back.url.startsWith(`${srv.url}/3ds/return/${sub.transactionOrderId}`)).toBe(true);
    expect(back.status).toBe(200);
    expect((await txn(sub.transactionOrderId)).status).toBe(200000);
    expect((await subStatus(sub.subscriptionId)).status).toBe('ACTIVE');
    const r = await cli(['--json', 'renew', '--at', at({ days: 15 })]);
    expect(r.status, r.stderr).toBe(0);
    expect(
      (
        await one<{ status: string }>(
          "SELECT status FROM billing_records WHERE subscription_id = ? AND billing_type = 'RENEW'",
          sub.subscriptionId,
        )
      ).status,
    ).toBe('SUCCESS');
  });

  it('3DS completed at Stripe without coming back: setup_intent.succeeded on the webhook settles it; a failed one expires the subscription', async () => {
    acct.setWebhookUrl(`${srv.url}/channel/stripe/${m.merchantId}/webhook`);
    try {
      const ok = await subscribe(trialPlan, '4000002500003155');
      const bad = await subscribe(trialPlan, '4000002500003155');
      for (const [s, outcome] of [
        [ok, 'pass'],
        [bad, 'fail'],
      ] as const) {
        const si = setupsOf(s.transactionOrderId)[0];
        await fetch(`${stripe.url}/3ds/${si?.id}/complete?client_secret=${si?.clientSecret}&outcome=${outcome}`, {
          redirect: 'manual',
        });
      }
      await stripe.webhooksIdle();
      expect(
        stripe.deliveries.filter((d) => d.type.startsWith('setup_intent.')).map((d) => [d.type, d.status]),
      ).toEqual(
        expect.arrayContaining([
          ['setup_intent.succeeded', 200],
          ['setup_intent.setup_failed', 200],
        ]),
      );
      expect([(await txn(ok.transactionOrderId)).status, (await subStatus(ok.subscriptionId)).status]).toEqual([
        200000,
        'ACTIVE',
      ]);
      expect(await txn(bad.transactionOrderId)).toMatchObject({ status: 300000, fail_reason: 'authentication_failed' });
      expect((await subStatus(bad.subscriptionId)).status).toBe('EXPIRED');
    } finally {
      acct.setWebhookUrl(null);
    }
  });

  it('a timeout after Stripe saved the card: 100000 with the SetupIntent recorded; the renewal run reads it (no second SetupIntent, no second confirm) and the subscription starts', async () => {
    stripe.faults.inject(
      { kind: 'timeout', afterMs: 60_000 },
      { match: { path: /^\/v1\/setup_intents\/[^/]+\/confirm$/ } },
    );
    const sub = await subscribe(trialPlan, '4242424242424242');
    expect(sub.status).toBe('100000');
    const t = await txn(sub.transactionOrderId);
    expect(t.channel_ref).toMatch(/^seti_/);
    expect(acct.state.setupIntents.get(t.channel_ref ?? '')?.status).toBe('succeeded');
    expect(await cardOf(sub.subscriptionId)).toMatchObject({ stripe_payment_method_id: expect.stringMatching(/^pm_/) });
    const r = await cli(['--json', 'renew']);
    expect(r.status, r.stderr).toBe(0);
    expect((await txn(sub.transactionOrderId)).status).toBe(200000);
    expect((await subStatus(sub.subscriptionId)).status).toBe('ACTIVE');
    expect(setupsOf(sub.transactionOrderId)).toHaveLength(1);
    expect(
      stripe.requests.filter((q) => q.idempotencyKey === `paygate:${sub.transactionOrderId}:0:setup_confirm`),
    ).toHaveLength(1);
  }, 40_000);
});

describe('card update for a subscription whose card Stripe keeps', () => {
  let planId: string;
  beforeAll(async () => {
    planId = await plan('9.99');
  });
  const update = (subscriptionId: string, cardNumber: string) =>
    c().post('/subscription/card/update', { subscriptionId, cardInfo: card(cardNumber) });

  it("a new card becomes a PaymentMethod on the subscription's Customer (SetupIntent, no charge); its ids replace the old card; renewals charge it", async () => {
    const sub = await subscribe(planId, '4242424242424242');
    const old = await cardOf(sub.subscriptionId);
    const charges = acct.state.charges.size;
    const r = await update(sub.subscriptionId, '5555555555554444');
    expect(r.body.data, r.text).toMatchObject({ status: '200000', card: '555555******4444' });
    const now = await cardOf(sub.subscriptionId);
    expect(now).toMatchObject({
      channel: 'stripe',
      pan_enc: null,
      last4: '4444',
      stripe_customer_id: old?.stripe_customer_id,
    });
    expect(now?.stripe_payment_method_id).not.toBe(old?.stripe_payment_method_id);
    expect(await rows('SELECT id FROM cards WHERE id = ?', old?.id)).toEqual([]);
    expect(acct.state.paymentMethods.get(now?.stripe_payment_method_id ?? '')).toMatchObject({
      customerId: old?.stripe_customer_id,
      setUpOffSession: true,
    });
    const check = await txn(r.body.data.transactionOrderId as string);
    expect(check).toMatchObject({
      payment_type: 'CARD_CHECK',
      channel: 'stripe',
      channel_ref: expect.stringMatching(/^seti_/),
    });
    expect(acct.state.charges.size).toBe(charges);
    const run = await cli(['--json', 'renew', '--at', at({ days: 32 })]);
    expect(run.status, run.stderr).toBe(0);
    expect(intentsOn(now?.stripe_payment_method_id)).toEqual([
      expect.objectContaining({ offSession: true, status: 'succeeded', amount: 999 }),
    ]);
  });

  it('a declined card: 300000 with the reason; the old card stays, ids and all', async () => {
    const sub = await subscribe(planId, '4242424242424242');
    const old = await cardOf(sub.subscriptionId);
    const r = await update(sub.subscriptionId, '4000000000009995');
    expect(r.body.data).toMatchObject({ status: '300000', failReason: 'insufficient_funds', card: '424242******4242' });
    expect(await cardOf(sub.subscriptionId)).toEqual(old);
    expect(
      (
        await rows<{ c: number }>(
          "SELECT count(*) AS c FROM cards WHERE merchant_id = ? AND last4 = '9995'",
          m.merchantId,
        )
      )[0]?.c,
    ).toBe(0);
  });

  it("3DS: 100040; paygate's page hands over to Stripe; a failed challenge ends 300000 authentication_failed and the old card stays", async () => {
    const sub = await subscribe(planId, '4242424242424242');
    const old = await cardOf(sub.subscriptionId);
    const r = await update(sub.subscriptionId, '4000002760003184');
    expect(r.body.data.status).toBe('100040');
    const back = await handOver(r.body.data.url as string, 'fail');
    expect(back.url.startsWith(`${srv.url}/3ds/return/${r.body.data.transactionOrderId}`)).toBe(true);
    expect(await txn(r.body.data.transactionOrderId as string)).toMatchObject({
      status: 300000,
      fail_reason: 'authentication_failed',
    });
    expect(await cardOf(sub.subscriptionId)).toEqual(old);
  });

  it('a timeout after Stripe saved the card: 100000 and the old card stays; the webhook finds the same SetupIntent and the new card takes over', async () => {
    const sub = await subscribe(planId, '4242424242424242');
    const old = await cardOf(sub.subscriptionId);
    acct.setWebhookUrl(`${srv.url}/channel/stripe/${m.merchantId}/webhook`);
    try {
      stripe.faults.inject(
        { kind: 'timeout', afterMs: 60_000 },
        { match: { path: /^\/v1\/setup_intents\/[^/]+\/confirm$/ } },
      );
      const r = await update(sub.subscriptionId, '5555555555554444');
      expect(r.body.data, r.text).toMatchObject({ status: '100000', card: '424242******4242' });
      const checkId = r.body.data.transactionOrderId as string;
      expect(await cardOf(sub.subscriptionId)).toEqual(old);
      // The event came while paygate waited (nothing recorded yet, so it changed nothing): Stripe retries it.
      const event = stripe.deliveries.filter((d) => d.type === 'setup_intent.succeeded').at(-1);
      expect(event?.status).toBe(200);
      expect((await stripe.redeliver(event?.eventId ?? '')).status).toBe(200);
      expect((await txn(checkId)).status).toBe(200000);
      expect(await cardOf(sub.subscriptionId)).toMatchObject({
        last4: '4444',
        stripe_customer_id: old?.stripe_customer_id,
      });
      expect(setupsOf(checkId)).toHaveLength(1);
      expect(stripe.requests.filter((q) => q.idempotencyKey === `paygate:${checkId}:0:setup_confirm`)).toHaveLength(1);
    } finally {
      acct.setWebhookUrl(null);
    }
  }, 40_000);

  it('a 500 after Stripe saved the card: 100000, the old card stays; the renewal run reads the SetupIntent (no second one) and the new card takes over', async () => {
    const sub = await subscribe(planId, '4242424242424242');
    const old = await cardOf(sub.subscriptionId);
    stripe.faults.inject(
      { kind: 'server_error', executed: true },
      { match: { path: /^\/v1\/setup_intents\/[^/]+\/confirm$/ } },
    );
    const r = await update(sub.subscriptionId, '5555555555554444');
    expect(r.body.data, r.text).toMatchObject({ status: '100000', card: '424242******4242' });
    expect(await cardOf(sub.subscriptionId)).toEqual(old);
    const run = await cli(['--json', 'renew']);
    expect(run.status, run.stderr).toBe(0);
    const checkId = r.body.data.transactionOrderId as string;
    expect((await txn(checkId)).status).toBe(200000);
    expect(await cardOf(sub.subscriptionId)).toMatchObject({
      last4: '4444',
      stripe_customer_id: old?.stripe_customer_id,
    });
    expect(setupsOf(checkId)).toHaveLength(1);
  });
});

describe('plan change NOW for a card Stripe keeps: the proration is charged off-session through a PaymentIntent', () => {
  let basic: string;
  let pro: string;
  beforeAll(async () => {
    basic = await plan('9.99');
    pro = await plan('29.99');
  });
  const change = (subscriptionId: string, planId: string) =>
    c().post('/subscription/change', { subscriptionId, planId, when: 'NOW' });

  it('CHANGED: one off-session PaymentIntent for the new price less the credit, keyed by the CHANGE record; the plan switches', async () => {
    const sub = await subscribe(basic, '4242424242424242');
    const kept = await cardOf(sub.subscriptionId);
    const r = await change(sub.subscriptionId, pro);
    expect(r.body.data, r.text).toMatchObject({ result: 'CHANGED', planId: pro });
    const record = r.body.data.record as { recordId: string; amount: number; transactionOrderId: string };
    const charged = intentsOn(kept?.stripe_payment_method_id).filter((i) => i.offSession);
    expect(charged).toEqual([
      expect.objectContaining({
        amount: Math.round(record.amount * 100),
        status: 'succeeded',
        customerId: kept?.stripe_customer_id,
      }),
    ]);
    expect(await txn(record.transactionOrderId)).toMatchObject({
      status: 200000,
      channel: 'stripe',
      channel_ref: charged[0]?.id,
    });
    const keys = stripe.requests
      .filter((q) => q.idempotencyKey?.startsWith(`paygate:${record.recordId}:0:`))
      .map((q) => q.idempotencyKey?.split(':').at(-1));
    expect(keys).toEqual(['off_session']);
    expect((await subStatus(sub.subscriptionId)).plan_id).toBe(pro);
  });

  it('a change paid by the credit: CHANGED with no PaymentIntent (none can be for 0); the next renewal, covered by the carried credit, is recorded without one too', async () => {
    const sub = await subscribe(pro, '4242424242424242');
    const kept = await cardOf(sub.subscriptionId);
    const before = intentsOn(kept?.stripe_payment_method_id).length;
    const r = await change(sub.subscriptionId, basic);
    expect(r.body.data, r.text).toMatchObject({
      result: 'CHANGED',
      planId: basic,
      record: { amount: 0, status: 'SUCCESS' },
    });
    expect(r.body.data.creditBalance).toBeGreaterThan(9.99);
    const run = await cli(['--json', 'renew', '--at', at({ days: 32 })]);
    expect(run.status, run.stderr).toBe(0);
    expect(
      await one<{ status: string; amount: number }>(
        "SELECT status, amount FROM billing_records WHERE subscription_id = ? AND billing_type = 'RENEW' AND status IN ('SUCCESS', 'FAILED')",
        sub.subscriptionId,
      ),
    ).toEqual({ status: 'SUCCESS', amount: 0 });
    expect(intentsOn(kept?.stripe_payment_method_id)).toHaveLength(before);
  });

  it('a card that needs authentication off-session: DECLINED authentication_required, the old plan stays, nothing charged', async () => {
    const sub = await subscribe(basic, '4000002760003184');
    expect(sub.status).toBe('100040');
    const back = await handOver2(sub.url ?? '');
    expect(back.status).toBe(200);
    expect((await subStatus(sub.subscriptionId)).status).toBe('ACTIVE');
    const charges = acct.state.charges.size;
    const r = await change(sub.subscriptionId, pro);
    expect(r.body.data, r.text).toMatchObject({
      result: 'DECLINED',
      failReason: 'authentication_required',
      planId: basic,
    });
    expect(r.body.data.record).toMatchObject({ status: 'FAILED' });
    expect((await subStatus(sub.subscriptionId)).plan_id).toBe(basic);
    expect(acct.state.charges.size).toBe(charges);
  });

  it('a timeout after Stripe charged: PENDING, nothing moved yet; a second change is 1008; the renewal run finds the same intent by its tag and records the change — one charge', async () => {
    const sub = await subscribe(basic, '4242424242424242');
    const kept = await cardOf(sub.subscriptionId);
    stripe.faults.inject(
      { kind: 'timeout', afterMs: 60_000 },
      { match: { method: 'POST', path: '/v1/payment_intents' } },
    );
    const r = await change(sub.subscriptionId, pro);
    expect(r.body.data, r.text).toMatchObject({ result: 'PENDING', planId: basic, record: { status: 'PENDING' } });
    const record = r.body.data.record as { recordId: string; transactionOrderId: string };
    const [made] = intentsOn(kept?.stripe_payment_method_id).filter((i) => i.offSession);
    expect(made?.status).toBe('succeeded');
    expect((await subStatus(sub.subscriptionId)).plan_id).toBe(basic);
    expect((await change(sub.subscriptionId, pro)).body.rtn_code).toBe('1008');
    const charges = acct.state.charges.size;
    // Past Stripe's 24 hours: the key is forgotten, so only the tag can find the charge.
    stripe.advanceClock(25 * 60 * 60 * 1000);
    const run = await cli(['--json', 'renew', '--at', at({ minutes: 11 })]);
    expect(run.status, run.stderr).toBe(0);
    expect((await subStatus(sub.subscriptionId)).plan_id).toBe(pro);
    expect(
      (await one<{ status: string }>('SELECT status FROM billing_records WHERE id = ?', record.recordId)).status,
    ).toBe('SUCCESS');
    expect(await txn(record.transactionOrderId)).toMatchObject({ status: 200000, channel_ref: made?.id });
    expect(acct.state.charges.size).toBe(charges);
    expect(intentsOn(kept?.stripe_payment_method_id).filter((i) => i.offSession)).toHaveLength(1);
  }, 40_000);
});

describe('a revoked key', () => {
  it("card update: 9999 with Stripe's reason, the old card stays; plan change now: 9999, the plan stays and the change is over", async () => {
    const other = stripe.createAccount();
    const m2 = createMerchant(db, 2, 'Revoked Cards');
    const up = await cli([
      'merchant',
      'update',
      m2.merchantId,
      '--channel',
      'stripe',
      '--stripe-secret-key',
      other.secretKey,
    ]);
    expect(up.status, up.stderr).toBe(0);
    const c2 = client(srv.url, m2);
    const plans = await Promise.all(
      ['9.99', '19.99'].map((price) =>
        c2.post('/subscription/plan/create', {
          planName: `R ${price}`,
          price,
          currency: 'USD',
          cycleType: 'MONTHLY',
          cycleLength: 1,
        }),
      ),
    );
    const [basic, pro] = plans.map((p) => p.body.data.planId as string);
    const sub = await c2.post('/subscription/create', {
      requestId: 'rv-1',
      relationId: 'rv-1',
      planId: basic,
      userId: 'rv',
      cardInfo: card('4242424242424242'),
    });
    expect(sub.body.data.status).toBe('200000');
    const subscriptionId = sub.body.data.subscriptionId as string;
    const old = await cardOf(subscriptionId);
    other.revokeKey();
    const u = await c2.post('/subscription/card/update', { subscriptionId, cardInfo: card('5555555555554444') });
    expect(u.body.rtn_code).toBe('9999');
    expect(u.body.rtn_msg).toMatch(/refused.*Expired API Key/);
    expect(u.text).not.toContain(other.secretKey);
    expect(await cardOf(subscriptionId)).toEqual(old);
    const ch = await c2.post('/subscription/change', { subscriptionId, planId: pro, when: 'NOW' });
    expect(ch.body.rtn_code).toBe('9999');
    expect((await subStatus(subscriptionId)).plan_id).toBe(basic);
    // Over, not left in flight: once the key works again a new change may be asked for.
    expect(
      await rows(
        "SELECT status FROM billing_records WHERE subscription_id = ? AND billing_type = 'CHANGE'",
        subscriptionId,
      ),
    ).toEqual([{ status: 'FAILED' }]);
  });
});

describe('the CLI on a Stripe merchant: sub update-card and sub change --now', () => {
  it("update-card saves the new card on the subscription's Customer; change --now charges the difference off-session; no card number in the output", async () => {
    const basic = await plan('5.00');
    const pro = await plan('15.00');
    const sub = await subscribe(basic, '4242424242424242');
    const old = await cardOf(sub.subscriptionId);
    used.add('5555555555554444');
    const up = await cli([
      '--json',
      'sub',
      'update-card',
      sub.subscriptionId,
      '--card',
      '5555555555554444',
      '--exp',
      `12/${YEAR}`,
      '--cvv',
      '321',
    ]);
    expect(up.status, up.stderr).toBe(0);
    expect(JSON.parse(up.stdout)).toMatchObject({ status: '200000', card: '555555******4444' });
    expect(up.stdout).not.toContain('5555555555554444');
    const now = await cardOf(sub.subscriptionId);
    expect(now).toMatchObject({ last4: '4444', pan_enc: null, stripe_customer_id: old?.stripe_customer_id });
    const ch = await cli(['--json', 'sub', 'change', sub.subscriptionId, '--plan', pro, '--now']);
    expect(ch.status, ch.stderr).toBe(0);
    expect(JSON.parse(ch.stdout)).toMatchObject({ result: 'CHANGED', planId: pro });
    expect(intentsOn(now?.stripe_payment_method_id)).toEqual([
      expect.objectContaining({ offSession: true, status: 'succeeded' }),
    ]);
  });
});

/** The first charge's PaymentIntent challenge (a subscription without a trial), passed through paygate's page. */
async function handOver2(url: string): Promise<Response> {
  const hand = await raw(url);
  return answerChallenge(hand.headers.get('location') ?? '', 'pass');
}

describe('no card number in the database', () => {
  it('after trials, card updates and plan changes through Stripe, none of the bytes the database keeps holds a card number used', async () => {
    expect(used.size).toBeGreaterThan(5);
    const files = await shop.rows.rawFiles(started);
    // The bytes read are the shop's: its merchant's name is in them.
    expect(files.some((f) => f.bytes.toString('latin1').includes('Stripe Cards'))).toBe(true);
    for (const f of files) {
      const bytes = f.bytes.toString('latin1');
      for (const num of used) expect(bytes.includes(num), `${num} in ${f.name}`).toBe(false);
    }
  });
});
