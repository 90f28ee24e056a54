import { DateTime } from 'luxon';
import { type StripeShop, stripeShop } from '../helpers/stripe-shop.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paygateAsync } from '../helpers/cli-async.js';
import type { StandinAccount, StripeStandin } from '../helpers/stripe-standin/index.js';
import { client, type Served, type TestMerchant } from '../helpers/serve.js';

/**
 * A Stripe merchant's subscriptions, renewals (off-session with the stored ids), refunds and the
 * renewal run's housekeeping, through `serve` and `paygate renew` against the local stand-in.
 */
let stripe: StripeStandin;
let srv: Served;
let db: string;
let shop: StripeShop;
let env: Record<string, string>;
let acct: StandinAccount;
let m: TestMerchant;
let n = 0;

const YEAR = String(new Date().getUTCFullYear() + 2);
const card = (cardNumber: string) =>
  JSON.stringify({ holderName: 'Ada Lovelace', cardNumber, month: '12', year: YEAR, cvv: '123' });
const cli = (args: string[]) => paygateAsync(['--db', db, ...args], env);
const inDays = (d: number) => DateTime.utc().plus({ days: d }).toFormat('yyyy-MM-dd HH:mm:ss');
const rows = <T>(sql: string, ...args: unknown[]): Promise<T[]> => shop.rows.all<T>(sql, ...args);

/** When this suite's shop was made: on PostgreSQL, the cluster's log is read from here on. */
let started: Date;

beforeAll(async () => {
  started = new Date();
  shop = await stripeShop({ prefix: 'paygate-stripe-renew-', name: 'Stripe Subscriptions' });
  ({ stripe, acct, db, env, m, srv } = shop);
});
afterAll(() => shop?.stop());

const c = () => client(srv.url, m);

async function subscribe(cardNumber: string) {
  n++;
  const plan = await c().post('/subscription/plan/create', {
    planName: `Monthly ${n}`,
    price: '9.99',
    currency: 'USD',
    cycleType: 'MONTHLY',
    cycleLength: 1,
  });
  const r = await c().post('/subscription/create', {
    requestId: `s-${n}`,
    relationId: `s-${n}`,
    planId: plan.body.data.planId,
    userId: `u-${n}`,
    cardInfo: card(cardNumber),
  });
  expect(r.body.rtn_code, r.text).toBe('0000');
  return r.body.data as { subscriptionId: string; status: string; transactionOrderId?: string };
}

async function pay(cardNumber = '4242424242424242') {
  n++;
  const r = await c().post(`/payment/${m.apiKey}/transaction`, {
    requestId: `p-${n}`,
    relationId: `p-${n}`,
    paymentType: 'PAY',
    payAmount: '10.00',
    currency: 'USD',
    cardInfo: card(cardNumber),
  });
  return r.body.data as { transactionOrderId: string; status: string };
}

describe("a Stripe merchant's subscription", () => {
  let subId: string;

  it('the first charge keeps the card on a Stripe Customer (setup_future_usage off_session); paygate stores the ids, no number', async () => {
    const sub = await subscribe('4242424242424242');
    subId = sub.subscriptionId;
    expect(sub.status).toBe('200000');
    const [cardRow] = await rows<Record<string, unknown>>(
      'SELECT c.* FROM cards c JOIN subscriptions s ON s.card_id = c.id WHERE s.id = ?',
      subId,
    );
    expect(cardRow).toMatchObject({ channel: 'stripe', pan_enc: null, last4: '4242', brand: 'visa', exp_month: 12 });
    expect(cardRow?.stripe_customer_id).toMatch(/^cus_/);
    expect(cardRow?.stripe_payment_method_id).toMatch(/^pm_/);
    const intent = [...acct.state.intents.values()].find((i) => i.customerId === cardRow?.stripe_customer_id);
    expect(intent).toMatchObject({ setupFutureUsage: 'off_session', status: 'succeeded', amount: 999 });
  });

  it('four concurrent renewal runs charge the due renewal exactly once, off-session with the stored ids', async () => {
    const at = inDays(32);
    const before = acct.state.intents.size;
    const runs = await Promise.all([1, 2, 3, 4].map(() => cli(['--json', 'renew', '--at', at])));
    for (const r of runs) expect(r.status, r.stderr).toBe(0);
    const succeeded = runs.map((r) => (JSON.parse(r.stdout) as { succeeded: number }).succeeded);
    expect(succeeded.reduce((a, b) => a + b, 0)).toBe(1);
    const fresh = [...acct.state.intents.values()].slice(before);
    expect(fresh).toHaveLength(1);
    expect(fresh[0]).toMatchObject({ offSession: true, status: 'succeeded', amount: 999 });
    const [rec] = await rows<{ id: string }>(
      "SELECT id FROM billing_records WHERE subscription_id = ? AND billing_type = 'RENEW' AND status = 'SUCCESS'",
      subId,
    );
    const keys = stripe.requests
      .filter((q) => q.idempotencyKey?.startsWith(`paygate:${rec?.id}:0:`))
      .map((q) => q.idempotencyKey);
    // One call creates and confirms the intent.
    expect(new Set(keys)).toEqual(new Set([`paygate:${rec?.id}:0:off_session`]));
    const renewal = await rows<{ channel: string; channel_ref: string; status: number }>(
      "SELECT channel, channel_ref, status FROM transactions WHERE billing_record_id = ? AND payment_type = 'RENEWAL'",
      rec?.id,
    );
    expect(renewal).toEqual([{ channel: 'stripe', channel_ref: fresh[0]?.id, status: 200000 }]);
  });

  it('a card that always needs authentication: its renewal fails authentication_required and a retry is scheduled', async () => {
    const sub = await subscribe('4000002760003184');
    // Customer-present, the first charge asked for 3DS: pass it on Stripe to start the subscription.
    expect(sub.status).toBe('100040');
    const txn = (
      await rows<{ id: string; channel_ref: string }>(
        "SELECT id, channel_ref FROM transactions WHERE subscription_id = ? AND payment_type = 'SUBSCRIPTION'",
        sub.subscriptionId,
      )
    )[0];
    const intent = acct.state.intents.get(txn?.channel_ref ?? '');
    await fetch(`${stripe.url}/3ds/${intent?.id}/complete?client_secret=${intent?.clientSecret}&outcome=pass`, {
      redirect: 'manual',
    });
    const back = await fetch(`${srv.url}/3ds/return/${txn?.id}`, { redirect: 'manual' });
    expect(back.status).toBe(200);
    expect(
      (await rows<{ status: string }>('SELECT status FROM subscriptions WHERE id = ?', sub.subscriptionId))[0]?.status,
    ).toBe('ACTIVE');
    const r = await cli(['--json', 'renew', '--at', inDays(32)]);
    expect(r.status, r.stderr).toBe(0);
    const recs = await rows<{ billing_type: string; status: string; fail_reason: string | null }>(
      'SELECT r.billing_type, r.status, t.fail_reason FROM billing_records r LEFT JOIN transactions t ON t.id = r.transaction_id WHERE r.subscription_id = ? ORDER BY r.scheduled_time',
      sub.subscriptionId,
    );
    expect(recs.find((x) => x.billing_type === 'RENEW')).toMatchObject({
      status: 'FAILED',
      fail_reason: 'authentication_required',
    });
    expect(recs.some((x) => x.billing_type === 'RETRY' && x.status === 'PENDING')).toBe(true);
  });
});

describe('refunds through Stripe', () => {
  const refund = (body: Record<string, unknown>) => c().post(`/payment/${m.apiKey}/refund`, body);

  it('partial then the rest: Stripe Refunds of the PaymentIntent, 400010 then 400000', async () => {
    const t = await pay();
    expect(t.status).toBe('200000');
    const a = await refund({ transactionOrderId: t.transactionOrderId, refundAmount: '4.00' });
    expect(a.body.data, a.text).toMatchObject({ status: '400010' });
    const b = await refund({ transactionOrderId: t.transactionOrderId, refundAmount: '6.00' });
    expect(b.body.data).toMatchObject({ status: '400000' });
    const intentId = (
      await rows<{ channel_ref: string }>('SELECT channel_ref FROM transactions WHERE id = ?', t.transactionOrderId)
    )[0]?.channel_ref;
    const refunds = [...acct.state.refunds.values()].filter((r) => r.intentId === intentId);
    expect(refunds.map((r) => r.amount).sort()).toEqual([400, 600]);
    expect(
      await refund({ transactionOrderId: t.transactionOrderId, refundAmount: '0.01' }).then((r) => r.body.rtn_code),
    ).toBe('1008');
  });

  it('a refund Stripe answers pending stays PENDING (amount reserved) until the renewal run reads it settled', async () => {
    const t = await pay();
    acct.setRefundMode('pending');
    try {
      const a = await refund({ transactionOrderId: t.transactionOrderId, refundAmount: '10.00' });
      expect(a.body.data, a.text).toMatchObject({ status: '200000', refundStatus: 'PENDING' });
      const [row] = await rows<{ id: string; status: string; channel_ref: string }>(
        'SELECT id, status, channel_ref FROM refunds WHERE transaction_id = ?',
        t.transactionOrderId,
      );
      expect(row).toMatchObject({ status: 'PENDING' });
      expect(row?.channel_ref).toMatch(/^re_/);
      // Reserved: nothing more can be refunded meanwhile.
      expect((await refund({ transactionOrderId: t.transactionOrderId, refundAmount: '0.01' })).body.rtn_code).toBe(
        '1010',
      );
      stripe.settleRefund(row?.channel_ref ?? '', 'succeeded');
      const before = stripe.requests.filter((q) => q.method === 'POST' && q.path === '/v1/refunds').length;
      const r = await cli([
        '--json',
        'renew',
        '--at',
        DateTime.utc().plus({ minutes: 10 }).toFormat('yyyy-MM-dd HH:mm:ss'),
      ]);
      expect(r.status, r.stderr).toBe(0);
      expect((await rows<{ status: string }>('SELECT status FROM refunds WHERE id = ?', row?.id))[0]?.status).toBe(
        'SUCCEEDED',
      );
      expect(
        (await rows<{ status: number }>('SELECT status FROM transactions WHERE id = ?', t.transactionOrderId))[0]
          ?.status,
      ).toBe(400000);
      // Read back, never asked for again.
      expect(stripe.requests.filter((q) => q.method === 'POST' && q.path === '/v1/refunds').length).toBe(before);
    } finally {
      acct.setRefundMode('succeeded');
    }
  });
  it('a refund Stripe made but answered 500: the renewal run adopts the Refund by its tag after Stripe forgot the key, never a second one', async () => {
    const t = await pay();
    stripe.faults.inject({ kind: 'server_error', executed: true }, { match: { method: 'POST', path: '/v1/refunds' } });
    const a = await refund({ transactionOrderId: t.transactionOrderId, refundAmount: '4.00', requestId: 'lost-500' });
    expect(a.body.data, a.text).toMatchObject({ status: '200000', refundStatus: 'PENDING' });
    const intentOf = async () =>
      (
        await rows<{ channel_ref: string }>('SELECT channel_ref FROM transactions WHERE id = ?', t.transactionOrderId)
      )[0]?.channel_ref;
    const intentId = await intentOf();
    const madeAtStripe = () => [...acct.state.refunds.values()].filter((r) => r.intentId === intentId);
    expect(madeAtStripe()).toHaveLength(1);
    // A day later Stripe no longer knows the key: only the tag tells that the Refund was made.
    stripe.advanceClock(25 * 3600_000);
    const r = await cli([
      '--json',
      'renew',
      '--at',
      DateTime.utc().plus({ minutes: 10 }).toFormat('yyyy-MM-dd HH:mm:ss'),
    ]);
    expect(r.status, r.stderr).toBe(0);
    expect(madeAtStripe()).toHaveLength(1);
    expect(
      await rows('SELECT status, channel_ref FROM refunds WHERE transaction_id = ?', t.transactionOrderId),
    ).toEqual([{ status: 'SUCCEEDED', channel_ref: madeAtStripe()[0]?.id }]);
    expect(
      await rows(
        'SELECT status, refunded_amount, refund_reserved FROM transactions WHERE id = ?',
        t.transactionOrderId,
      ),
    ).toEqual([{ status: 400010, refunded_amount: 400, refund_reserved: 0 }]);
  });
});

describe('payments left in flight', () => {
  it('a 500 after Stripe charged: 100000, then the renewal run reads the intent and records 200000, with no second charge', async () => {
    stripe.faults.inject({ kind: 'server_error', executed: true }, { match: { path: /\/confirm$/ } });
    const t = await pay();
    expect(t.status).toBe('100000');
    const charges = acct.state.charges.size;
    const r = await cli(['--json', 'renew']);
    expect(r.status, r.stderr).toBe(0);
    const q = await c().get(`/payment/${m.apiKey}/transaction/query`, { transactionOrderId: t.transactionOrderId });
    expect(q.body.data.status).toBe('200000');
    expect(acct.state.charges.size).toBe(charges);
  });
});

describe('3-D Secure sessions that run out', () => {
  it('passed on Stripe but never returned: the expiry sweep asks Stripe and records 200000, not EXPIRED; one never passed expires', async () => {
    n++;
    const three = (rel: string) =>
      c().post(`/payment/${m.apiKey}/transaction`, {
        requestId: rel,
        relationId: rel,
        paymentType: 'PAY',
        payAmount: '10.00',
        currency: 'USD',
        cardInfo: card('4000002500003155'),
      });
    const paid = (await three(`x-${n}-a`)).body.data as { transactionOrderId: string; status: string };
    const left = (await three(`x-${n}-b`)).body.data as { transactionOrderId: string; status: string };
    expect([paid.status, left.status]).toEqual(['100040', '100040']);
    const ref =
      (
        await rows<{ channel_ref: string }>(
          'SELECT channel_ref FROM transactions WHERE id = ?',
          paid.transactionOrderId,
        )
      )[0]?.channel_ref ?? '';
    const intent = acct.state.intents.get(ref);
    await fetch(`${stripe.url}/3ds/${ref}/complete?client_secret=${intent?.clientSecret}&outcome=pass`, {
      redirect: 'manual',
    });
    const r = await cli([
      '--json',
      'renew',
      '--at',
      DateTime.utc().plus({ minutes: 31 }).toFormat('yyyy-MM-dd HH:mm:ss'),
    ]);
    expect(r.status, r.stderr).toBe(0);
    const status = async (id: string) =>
      (
        await rows<{ status: number; fail_reason: string | null }>(
          'SELECT status, fail_reason FROM transactions WHERE id = ?',
          id,
        )
      )[0];
    expect(await status(paid.transactionOrderId)).toEqual({ status: 200000, fail_reason: null });
    expect(await status(left.transactionOrderId)).toEqual({ status: 300010, fail_reason: 'authentication_expired' });
  });
});

describe('no card number in the database', () => {
  it('after Stripe payments, subscriptions and renewals, none of the bytes the database keeps holds a card number used', async () => {
    const numbers = ['4242424242424242', '4000002760003184', '4000002500003155'];
    const files = await shop.rows.rawFiles(started);
    // The bytes read are the shop's: its merchant's name is in them.
    expect(files.some((f) => f.bytes.toString('latin1').includes('Stripe Subscriptions'))).toBe(true);
    for (const f of files) {
      const bytes = f.bytes.toString('latin1');
      for (const num of numbers) expect(bytes.includes(num), `${num} in ${f.name}`).toBe(false);
    }
  });
});
