import { DateTime } from 'luxon';
import { type StripeShop, stripeShop } from '../helpers/stripe-shop.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paygateAsync } from '../helpers/cli-async.js';
import type { StandinAccount, StripeStandin } from '../helpers/stripe-standin/index.js';
import { client, type Served, type TestMerchant } from '../helpers/serve.js';

/**
 * A 3-D Secure session that runs out (30 minutes) on a Stripe merchant: the renewal run's expiry
 * sweep cancels the PaymentIntent at Stripe (cancellation_reason=abandoned) before recording
 * EXPIRED, so a shopper finishing the challenge later is never charged for a payment paygate gave
 * up; an intent paid meanwhile is recorded paid instead.
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
const cli = (args: string[]) => paygateAsync(['--db', db, ...args], env);
const later = (minutes: number) => DateTime.utc().plus({ minutes }).toFormat('yyyy-MM-dd HH:mm:ss');
const row = async (id: string) =>
  (await shop.rows.get<{ status: number; fail_reason: string | null; channel_ref: string }>(
    'SELECT status, fail_reason, channel_ref FROM transactions WHERE id = ?',
    id,
  )) as { status: number; fail_reason: string | null; channel_ref: string };

beforeAll(async () => {
  shop = await stripeShop({ prefix: 'paygate-stripe-3ds-', name: 'Abandoned Carts' });
  ({ stripe, acct, db, env, m, srv } = shop);
});
afterAll(() => shop?.stop());

/** A PAY with the card that asks for 3-D Secure: 100040, its intent waiting on the challenge. */
async function threeDsPay(): Promise<{ txn: string; intent: string }> {
  n++;
  const r = await client(srv.url, m).post(`/payment/${m.apiKey}/transaction`, {
    requestId: `a-${n}`,
    relationId: `a-${n}`,
    paymentType: 'PAY',
    payAmount: '25.00',
    currency: 'USD',
    cardInfo: JSON.stringify({
      holderName: 'Ada Lovelace',
      cardNumber: '4000002500003155',
      month: '12',
      year: YEAR,
      cvv: '123',
    }),
  });
  expect(r.body.data.status).toBe('100040');
  const txn = r.body.data.transactionOrderId as string;
  return { txn, intent: (await row(txn)).channel_ref };
}

const completeOnStripe = (intent: string, outcome: 'pass' | 'fail') =>
  fetch(
    `${stripe.url}/3ds/${intent}/complete?client_secret=${encodeURIComponent(acct.state.intents.get(intent)?.clientSecret ?? '')}&outcome=${outcome}`,
    { redirect: 'manual' },
  );
const cancels = (intent: string) =>
  stripe.requests.filter((q) => q.method === 'POST' && q.path === `/v1/payment_intents/${intent}/cancel`);

describe('a 3-D Secure session that ran out on Stripe', () => {
  it('the sweep cancels the intent (abandoned, keyed by the payment) and records EXPIRED; the challenge finished later charges nothing', async () => {
    const { txn, intent } = await threeDsPay();
    const r = await cli(['--json', 'renew', '--at', later(31)]);
    expect(r.status, r.stderr).toBe(0);
    expect(await row(txn)).toMatchObject({ status: 300010, fail_reason: 'authentication_expired' });
    expect(acct.state.intents.get(intent)).toMatchObject({ status: 'canceled', cancellationReason: 'abandoned' });
    expect(cancels(intent).map((q) => [q.idempotencyKey, q.status])).toEqual([[`paygate:${txn}:0:cancel`, 200]]);
    // The shopper comes back to Stripe's challenge page afterwards: nothing can be charged.
    await completeOnStripe(intent, 'pass');
    expect(acct.state.intents.get(intent)?.status).toBe('canceled');
    expect([...acct.state.charges.values()].filter((c) => c.intentId === intent && c.succeeded)).toHaveLength(0);
    // A second sweep finds nothing open: no second cancel.
    await cli(['--json', 'renew', '--at', later(45)]);
    expect(cancels(intent)).toHaveLength(1);
  });

  it('paid at the instant paygate cancels: Stripe refuses the cancel, the intent is read again and the payment recorded 200000', async () => {
    const { txn, intent } = await threeDsPay();
    // The shopper passes the challenge just as the cancel reaches Stripe.
    stripe.faults.inject(
      { kind: 'before', run: async () => void (await completeOnStripe(intent, 'pass')) },
      { match: { path: `/v1/payment_intents/${intent}/cancel` } },
    );
    const r = await cli(['--json', 'renew', '--at', later(31)]);
    expect(r.status, r.stderr).toBe(0);
    expect(cancels(intent).map((q) => q.status)).toEqual([400]);
    expect(acct.state.intents.get(intent)?.status).toBe('succeeded');
    expect(await row(txn)).toMatchObject({ status: 200000, fail_reason: null });
  });

  it('Stripe failing the cancel (500): left 100040, not expired on a guess; the next sweep cancels it and expires it', async () => {
    const { txn, intent } = await threeDsPay();
    stripe.faults.inject({ kind: 'server_error' }, { match: { path: `/v1/payment_intents/${intent}/cancel` } });
    await cli(['--json', 'renew', '--at', later(31)]);
    expect((await row(txn)).status).toBe(100040);
    expect(acct.state.intents.get(intent)?.status).toBe('requires_action');
    await cli(['--json', 'renew', '--at', later(32)]);
    expect(await row(txn)).toMatchObject({ status: 300010, fail_reason: 'authentication_expired' });
    expect(acct.state.intents.get(intent)?.status).toBe('canceled');
  });

  it('cancelled at Stripe but the answer lost (500 stored for the key): the next sweep reads it cancelled and expires it without asking again', async () => {
    const { txn, intent } = await threeDsPay();
    stripe.faults.inject(
      { kind: 'server_error', executed: true },
      { match: { path: `/v1/payment_intents/${intent}/cancel` } },
    );
    await cli(['--json', 'renew', '--at', later(31)]);
    expect((await row(txn)).status).toBe(100040);
    expect(acct.state.intents.get(intent)?.status).toBe('canceled');
    await cli(['--json', 'renew', '--at', later(32)]);
    expect(await row(txn)).toMatchObject({ status: 300010, fail_reason: 'authentication_expired' });
    expect(cancels(intent)).toHaveLength(1);
  });
});

describe("a subscription cancelled while its first charge's Stripe challenge is open", () => {
  let planId = '';
  /** A SUBSCRIPTION whose first charge asks for 3-D Secure: INCOMPLETE, its intent waiting. */
  async function threeDsSubscribe(): Promise<{ sub: string; txn: string; intent: string }> {
    if (!planId) {
      const p = await client(srv.url, m).post('/subscription/plan/create', {
        planName: 'Tea club',
        price: '10.00',
        currency: 'USD',
        cycleType: 'MONTHLY',
        cycleLength: 1,
      });
      expect(p.body.rtn_code, p.text).toBe('0000');
      planId = p.body.data.planId as string;
    }
    n++;
    const r = await client(srv.url, m).post(`/payment/${m.apiKey}/transaction`, {
      requestId: `cs-${n}`,
      relationId: `cs-${n}`,
      paymentType: 'SUBSCRIPTION',
      planId,
      userId: `u-${n}`,
      cardInfo: JSON.stringify({ cardNumber: '4000002500003155', month: '12', year: YEAR, cvv: '123' }),
    });
    expect(r.body.data.status, r.text).toBe('100040');
    const txn = r.body.data.transactionOrderId as string;
    return { sub: r.body.data.subscriptionId as string, txn, intent: (await row(txn)).channel_ref };
  }
  const cancel = (subscriptionId: string) => client(srv.url, m).post('/subscription/cancel', { subscriptionId });
  const subStatus = async (id: string) =>
    (await shop.rows.get<{ status: string }>('SELECT status FROM subscriptions WHERE id = ?', id))?.status;

  it('the intent is cancelled at Stripe before the charge is recorded cancelled: the challenge finished later charges nothing', async () => {
    const { sub, txn, intent } = await threeDsSubscribe();
    expect((await cancel(sub)).body.rtn_code).toBe('0000');
    expect(await row(txn)).toMatchObject({ status: 300020 });
    expect(acct.state.intents.get(intent)?.status).toBe('canceled');
    await completeOnStripe(intent, 'pass');
    expect([...acct.state.charges.values()].filter((c) => c.intentId === intent && c.succeeded)).toHaveLength(0);
    expect(await subStatus(sub)).toBe('CANCELLED');
  });

  it('passed at Stripe just before the cancel: the payment is recorded 200000, then the paid subscription is cancelled', async () => {
    const { sub, txn, intent } = await threeDsSubscribe();
    await completeOnStripe(intent, 'pass');
    expect((await cancel(sub)).body.rtn_code).toBe('0000');
    expect(await row(txn)).toMatchObject({ status: 200000 });
    expect(await subStatus(sub)).toBe('CANCELLED');
    const paid = await shop.rows.get<{ billing_count: number; total_paid: number }>(
      'SELECT billing_count, total_paid FROM subscriptions WHERE id = ?',
      sub,
    );
    expect(paid).toMatchObject({ billing_count: 1, total_paid: 1000 });
  });
});
