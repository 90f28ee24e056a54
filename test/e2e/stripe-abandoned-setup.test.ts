import { DateTime } from 'luxon';
import { type StripeShop, stripeShop } from '../helpers/stripe-shop.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paygateAsync } from '../helpers/cli-async.js';
import type { StandinAccount, StripeStandin } from '../helpers/stripe-standin/index.js';
import { client, type Served, type TestMerchant } from '../helpers/serve.js';

/**
 * A card check's 3-D Secure session that runs out (30 minutes) on a Stripe merchant — a trial
 * plan's first charge, a subscription's card update, both a SetupIntent: the renewal run's expiry
 * sweep cancels the SetupIntent at Stripe (cancellation_reason=abandoned) before recording
 * EXPIRED, so a cardholder finishing the challenge later saves no card paygate gave up; one that
 * succeeded meanwhile is recorded saved instead (the trial starts, the new card replaces the old).
 */
let stripe: StripeStandin;
let srv: Served;
let db: string;
let shop: StripeShop;
let env: Record<string, string>;
let acct: StandinAccount;
let m: TestMerchant;
let trialPlan: string;
let plainPlan: string;
let n = 0;

const YEAR = String(new Date().getUTCFullYear() + 2);
const card = (cardNumber: string) =>
  JSON.stringify({ holderName: 'Ada Lovelace', cardNumber, month: '12', year: YEAR, cvv: '123' });
const cli = (args: string[]) => paygateAsync(['--db', db, ...args], env);
const later = (minutes: number) => DateTime.utc().plus({ minutes }).toFormat('yyyy-MM-dd HH:mm:ss');
const one = async <T>(sql: string, ...args: unknown[]): Promise<T> => (await shop.rows.get<T>(sql, ...args)) as T;
const row = async (id: string) =>
  one<{ status: number; fail_reason: string | null; channel_ref: string; payment_type: string }>(
    'SELECT status, fail_reason, channel_ref, payment_type FROM transactions WHERE id = ?',
    id,
  );
const subStatus = async (subId: string) =>
  (await one<{ status: string }>('SELECT status FROM subscriptions WHERE id = ?', subId)).status;
type CardRow = {
  id: string;
  last4: string;
  stripe_customer_id: string | null;
  stripe_payment_method_id: string | null;
};
const cardOf = async (subId: string) =>
  one<CardRow | undefined>(
    'SELECT c.id, c.last4, c.stripe_customer_id, c.stripe_payment_method_id FROM cards c JOIN subscriptions s ON s.card_id = c.id WHERE s.id = ?',
    subId,
  );

beforeAll(async () => {
  shop = await stripeShop({ prefix: 'paygate-stripe-setup-', name: 'Abandoned Setups' });
  ({ stripe, acct, db, env, m, srv } = shop);
  const plan = async (trialDays: number) => {
    n++;
    const r = await client(srv.url, m).post('/subscription/plan/create', {
      planName: `Plan ${n}`,
      price: '9.99',
      currency: 'USD',
      cycleType: 'MONTHLY',
      cycleLength: 1,
      ...(trialDays ? { trialDays } : {}),
    });
    expect(r.body.rtn_code, r.text).toBe('0000');
    return r.body.data.planId as string;
  };
  trialPlan = await plan(14);
  plainPlan = await plan(0);
});
afterAll(() => shop?.stop());

async function subscribe(planId: string, cardNumber: string) {
  n++;
  const r = await client(srv.url, m).post('/subscription/create', {
    requestId: `s-${n}`,
    relationId: `s-${n}`,
    planId,
    userId: `u-${n}`,
    cardInfo: card(cardNumber),
  });
  expect(r.body.rtn_code, r.text).toBe('0000');
  return r.body.data as { subscriptionId: string; status: string; transactionOrderId: string };
}

/** A trial plan's first charge with the card that asks for 3-D Secure: 100040, its SetupIntent waiting on the challenge. */
async function threeDsTrial(): Promise<{ sub: string; txn: string; intent: string }> {
  const s = await subscribe(trialPlan, '4000002500003155');
  expect(s.status).toBe('100040');
  const intent = (await row(s.transactionOrderId)).channel_ref;
  expect(intent).toMatch(/^seti_/);
  return { sub: s.subscriptionId, txn: s.transactionOrderId, intent };
}

/** An ACTIVE subscription's card update to a card that always asks for 3-D Secure: 100040, a CARD_CHECK's SetupIntent waiting. */
async function threeDsCardUpdate(): Promise<{ sub: string; txn: string; intent: string; old: CardRow | undefined }> {
  const s = await subscribe(plainPlan, '4242424242424242');
  expect(s.status).toBe('200000');
  const old = await cardOf(s.subscriptionId);
  const r = await client(srv.url, m).post('/subscription/card/update', {
    subscriptionId: s.subscriptionId,
    cardInfo: card('4000002760003184'),
  });
  expect(r.body.data?.status, r.text).toBe('100040');
  const txn = r.body.data.transactionOrderId as string;
  expect(await row(txn)).toMatchObject({ payment_type: 'CARD_CHECK', channel_ref: expect.stringMatching(/^seti_/) });
  return { sub: s.subscriptionId, txn, intent: (await row(txn)).channel_ref, old };
}

const completeOnStripe = (intent: string, outcome: 'pass' | 'fail') =>
  fetch(
    `${stripe.url}/3ds/${intent}/complete?client_secret=${encodeURIComponent(acct.state.setupIntents.get(intent)?.clientSecret ?? '')}&outcome=${outcome}`,
    { redirect: 'manual' },
  );
const cancels = (intent: string) =>
  stripe.requests.filter((q) => q.method === 'POST' && q.path === `/v1/setup_intents/${intent}/cancel`);
const sweep = async (minutes: number) => {
  const r = await cli(['--json', 'renew', '--at', later(minutes)]);
  expect(r.status, r.stderr).toBe(0);
};

describe("a trial plan's 3-D Secure card check that ran out on Stripe", () => {
  it('the sweep cancels the SetupIntent (abandoned, keyed by the payment) and records EXPIRED, the subscription EXPIRED; the challenge finished later saves nothing', async () => {
    const { sub, txn, intent } = await threeDsTrial();
    await sweep(31);
    expect(await row(txn)).toMatchObject({ status: 300010, fail_reason: 'authentication_expired' });
    expect(await subStatus(sub)).toBe('EXPIRED');
    expect(acct.state.setupIntents.get(intent)).toMatchObject({ status: 'canceled', cancellationReason: 'abandoned' });
    expect(cancels(intent).map((q) => [q.idempotencyKey, q.status])).toEqual([[`paygate:${txn}:0:cancel`, 200]]);
    // The cardholder comes back to Stripe's challenge page afterwards: no card is saved.
    await completeOnStripe(intent, 'pass');
    expect(acct.state.setupIntents.get(intent)?.status).toBe('canceled');
    // A second sweep finds nothing open: no second cancel.
    await sweep(45);
    expect(cancels(intent)).toHaveLength(1);
  });

  it('the challenge passed at Stripe meanwhile (the shopper never came back): not cancelled, recorded 200000 and the trial starts with the card Stripe saved', async () => {
    const { sub, txn, intent } = await threeDsTrial();
    await completeOnStripe(intent, 'pass');
    await sweep(31);
    expect(cancels(intent)).toHaveLength(0);
    expect(acct.state.setupIntents.get(intent)?.status).toBe('succeeded');
    expect(await row(txn)).toMatchObject({ status: 200000, fail_reason: null });
    expect(await subStatus(sub)).toBe('ACTIVE');
    expect(await cardOf(sub)).toMatchObject({
      stripe_payment_method_id: acct.state.setupIntents.get(intent)?.paymentMethodId,
    });
  });

  it('the challenge failed at Stripe meanwhile (webhook missed): the SetupIntent is closed (cancelled) and recorded 300000 authentication_failed, the subscription EXPIRED', async () => {
    const { sub, txn, intent } = await threeDsTrial();
    await completeOnStripe(intent, 'fail');
    expect(acct.state.setupIntents.get(intent)?.status).toBe('requires_payment_method');
    await sweep(31);
    expect(cancels(intent).map((q) => [q.idempotencyKey, q.status])).toEqual([[`paygate:${txn}:0:cancel`, 200]]);
    expect(acct.state.setupIntents.get(intent)?.status).toBe('canceled');
    expect(await row(txn)).toMatchObject({ status: 300000, fail_reason: 'authentication_failed' });
    expect(await subStatus(sub)).toBe('EXPIRED');
  });

  it('Stripe failing the cancel (500): left 100040, not expired on a guess; the next sweep cancels it and expires it', async () => {
    const { sub, txn, intent } = await threeDsTrial();
    stripe.faults.inject({ kind: 'server_error' }, { match: { path: `/v1/setup_intents/${intent}/cancel` } });
    await sweep(31);
    expect((await row(txn)).status).toBe(100040);
    expect(await subStatus(sub)).toBe('INCOMPLETE');
    expect(acct.state.setupIntents.get(intent)?.status).toBe('requires_action');
    await sweep(32);
    expect(await row(txn)).toMatchObject({ status: 300010, fail_reason: 'authentication_expired' });
    expect(acct.state.setupIntents.get(intent)?.status).toBe('canceled');
    expect(await subStatus(sub)).toBe('EXPIRED');
  });

  it('cancelled at Stripe but the answer lost (500 stored for the key): the next sweep reads it cancelled and expires it without asking again', async () => {
    const { txn, intent } = await threeDsTrial();
    stripe.faults.inject(
      { kind: 'server_error', executed: true },
      { match: { path: `/v1/setup_intents/${intent}/cancel` } },
    );
    await sweep(31);
    expect((await row(txn)).status).toBe(100040);
    expect(acct.state.setupIntents.get(intent)?.status).toBe('canceled');
    await sweep(32);
    expect(await row(txn)).toMatchObject({ status: 300010, fail_reason: 'authentication_expired' });
    expect(cancels(intent)).toHaveLength(1);
  });
});

describe("a card update's 3-D Secure card check that ran out on Stripe", () => {
  it('the sweep cancels the SetupIntent and records the CARD_CHECK EXPIRED; the old card stays, ids and all', async () => {
    const { sub, txn, intent, old } = await threeDsCardUpdate();
    await sweep(31);
    expect(await row(txn)).toMatchObject({ status: 300010, fail_reason: 'authentication_expired' });
    expect(acct.state.setupIntents.get(intent)).toMatchObject({ status: 'canceled', cancellationReason: 'abandoned' });
    expect(cancels(intent).map((q) => [q.idempotencyKey, q.status])).toEqual([[`paygate:${txn}:0:cancel`, 200]]);
    expect(await cardOf(sub)).toEqual(old);
    expect(await subStatus(sub)).toBe('ACTIVE');
  });

  it('the challenge passed at Stripe meanwhile: not cancelled, recorded 200000 and the new card replaces the old', async () => {
    const { sub, txn, intent, old } = await threeDsCardUpdate();
    await completeOnStripe(intent, 'pass');
    await sweep(31);
    expect(cancels(intent)).toHaveLength(0);
    expect(await row(txn)).toMatchObject({ status: 200000, fail_reason: null });
    const now = await cardOf(sub);
    expect(now).toMatchObject({
      last4: '3184',
      stripe_customer_id: old?.stripe_customer_id,
      stripe_payment_method_id: acct.state.setupIntents.get(intent)?.paymentMethodId,
    });
    expect(now?.id).not.toBe(old?.id);
  });

  it('passed at the instant paygate cancels: Stripe refuses the cancel, the SetupIntent is read again and the new card recorded saved', async () => {
    const { sub, txn, intent } = await threeDsCardUpdate();
    stripe.faults.inject(
      { kind: 'before', run: async () => void (await completeOnStripe(intent, 'pass')) },
      { match: { path: `/v1/setup_intents/${intent}/cancel` } },
    );
    await sweep(31);
    expect(cancels(intent).map((q) => q.status)).toEqual([400]);
    expect(acct.state.setupIntents.get(intent)?.status).toBe('succeeded');
    expect(await row(txn)).toMatchObject({ status: 200000, fail_reason: null });
    expect(await cardOf(sub)).toMatchObject({
      last4: '3184',
      stripe_payment_method_id: acct.state.setupIntents.get(intent)?.paymentMethodId,
    });
  });

  it('Stripe failing the cancel (500): left 100040 and the old card stays; the next sweep cancels it and expires it', async () => {
    const { sub, txn, intent, old } = await threeDsCardUpdate();
    stripe.faults.inject({ kind: 'server_error' }, { match: { path: `/v1/setup_intents/${intent}/cancel` } });
    await sweep(31);
    expect((await row(txn)).status).toBe(100040);
    expect(acct.state.setupIntents.get(intent)?.status).toBe('requires_action');
    await sweep(32);
    expect(await row(txn)).toMatchObject({ status: 300010, fail_reason: 'authentication_expired' });
    expect(acct.state.setupIntents.get(intent)?.status).toBe('canceled');
    expect(await cardOf(sub)).toEqual(old);
  });
});
