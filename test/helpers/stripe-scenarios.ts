import { Database } from '../../src/store/sqlite/driver.js';
import Stripe from 'stripe';
import { expect } from 'vitest';
import { paygateAsync } from './cli-async.js';
import type { TestEngine } from './env.js';
import { client, createMerchant, startServe, type Served, type TestMerchant } from './serve.js';
import { shopDatabase, type RowReader } from './shop-db.js';

/**
 * The Stripe flows as one merchant sees them, written once and run against two Stripes: the local
 * stand-in (test/e2e/stripe-scenarios.test.ts, every run) and Stripe's own test mode
 * (test/e2e/stripe-live.test.ts, opt-in with STRIPE_TEST_SECRET_KEY). Only the Stripe behind
 * them differs, so what passes against the stand-in is exactly what is tried against Stripe.
 *
 * Every assertion about Stripe's side goes through the official client (`stripe`), reading the
 * objects paygate recorded ids of, so the same check holds on both.
 */
export interface StripeScenarioEnv {
  srv: Served;
  engine: TestEngine;
  /** What `--db` takes: a SQLite file or a postgres:// URL. */
  db: string;
  /** Rows of that database, read as another process would (`?` placeholders on both engines). */
  rows: RowReader;
  /**
   * How a renewal is made due without waiting a month. 'clock': both runs are `renew --at` the
   * renewal's time, which paygate allows only while Stripe is a local stand-in (plain http on
   * loopback). 'record': against Stripe itself, where a run ahead of the clock is refused, the
   * record is moved into the past in the SQLite file instead.
   */
  dueBy: 'clock' | 'record';
  m: TestMerchant;
  /** The CLI's environment (PAYGATE_STRIPE_API_URL for the stand-in; nothing for Stripe). */
  cliEnv: Record<string, string>;
  /** The official client with the merchant's key, on the same Stripe paygate talks to. */
  stripe: Stripe;
  /** Makes requestIds and relationIds unique across runs (Stripe test mode keeps everything). */
  tag: string;
}

const YEAR = String(new Date().getUTCFullYear() + 2);
export const scenarioCard = (cardNumber: string) =>
  JSON.stringify({ holderName: 'Ada Lovelace', cardNumber, month: '12', year: YEAR, cvv: '123' });

let seq = 0;
const next = (e: StripeScenarioEnv, what: string) => `${e.tag}-${what}-${++seq}`;
const api = (e: StripeScenarioEnv) => client(e.srv.url, e.m);

async function intentOf(e: StripeScenarioEnv, txn: string): Promise<Stripe.PaymentIntent> {
  const ref = (
    await e.rows.get<{ channel_ref: string | null }>('SELECT channel_ref FROM transactions WHERE id = ?', txn)
  )?.channel_ref;
  expect(ref, `transaction ${txn} has no PaymentIntent`).toMatch(/^pi_/);
  return e.stripe.paymentIntents.retrieve(ref ?? '');
}

/** PAY with 4242…: 200000 at once; Stripe holds one succeeded intent of the amount. */
export async function payScenario(
  e: StripeScenarioEnv,
  amount = '12.34',
): Promise<{ txn: string; intent: Stripe.PaymentIntent }> {
  const id = next(e, 'pay');
  const r = await api(e).post(`/payment/${e.m.apiKey}/transaction`, {
    requestId: id,
    relationId: id,
    paymentType: 'PAY',
    payAmount: amount,
    currency: 'USD',
    cardInfo: scenarioCard('4242424242424242'),
  });
  expect(r.body.rtn_code, r.text).toBe('0000');
  expect(r.body.data).toMatchObject({ status: '200000', payAmount: amount });
  const txn = r.body.data.transactionOrderId as string;
  const intent = await intentOf(e, txn);
  expect(intent).toMatchObject({ status: 'succeeded', amount: Math.round(Number(amount) * 100), currency: 'usd' });
  return { txn, intent };
}

/** PAY with Stripe's generic decline card: 300000 card_declined, nothing charged. */
export async function declineScenario(e: StripeScenarioEnv): Promise<void> {
  const id = next(e, 'decline');
  const r = await api(e).post(`/payment/${e.m.apiKey}/transaction`, {
    requestId: id,
    relationId: id,
    paymentType: 'PAY',
    payAmount: '5.00',
    currency: 'USD',
    cardInfo: scenarioCard('4000000000000002'),
  });
  expect(r.body.data, r.text).toMatchObject({ status: '300000', failReason: 'card_declined' });
  const intent = await intentOf(e, r.body.data.transactionOrderId as string);
  expect(intent.status).not.toBe('succeeded');
}

/** A monthly plan and a SUBSCRIPTION with 4242…: ACTIVE; the card kept on a Stripe Customer, no number stored. */
export async function subscriptionScenario(e: StripeScenarioEnv): Promise<{ subscriptionId: string }> {
  const id = next(e, 'sub');
  const plan = await api(e).post('/subscription/plan/create', {
    planName: `Monthly ${id}`,
    price: '9.99',
    currency: 'USD',
    cycleType: 'MONTHLY',
    cycleLength: 1,
  });
  expect(plan.body.rtn_code, plan.text).toBe('0000');
  const r = await api(e).post('/subscription/create', {
    requestId: id,
    relationId: id,
    planId: plan.body.data.planId,
    userId: `user-${id}`,
    cardInfo: scenarioCard('4242424242424242'),
  });
  expect(r.body.rtn_code, r.text).toBe('0000');
  expect(r.body.data).toMatchObject({ status: '200000' });
  const subscriptionId = r.body.data.subscriptionId as string;
  const card = await e.rows.get(
    'SELECT c.* FROM cards c JOIN subscriptions s ON s.card_id = c.id WHERE s.id = ?',
    subscriptionId,
  );
  expect(card).toMatchObject({ channel: 'stripe', pan_enc: null, last4: '4242' });
  const customer = String(card?.stripe_customer_id);
  const pm = await e.stripe.paymentMethods.retrieve(String(card?.stripe_payment_method_id));
  expect(pm.customer === customer || (typeof pm.customer === 'object' && pm.customer?.id === customer)).toBe(true);
  const intent = await intentOf(e, r.body.data.transactionOrderId as string);
  expect(intent).toMatchObject({ status: 'succeeded', amount: 999, setup_future_usage: 'off_session' });
  return { subscriptionId };
}

/**
 * The subscription's next renewal made due (see `dueBy`: the one thing a test may not wait a
 * month for), then two renewal runs at once: charged exactly once, off-session, with the kept
 * Customer and PaymentMethod.
 */
export async function renewalScenario(e: StripeScenarioEnv, subscriptionId: string): Promise<void> {
  let at: string[] = [];
  if (e.dueBy === 'clock') at = ['--at', await nextBillingTime(e, subscriptionId)];
  else moveRenewalIntoPast(e, subscriptionId);
  const runs = await Promise.all([1, 2].map(() => paygateAsync(['--db', e.db, '--json', 'renew', ...at], e.cliEnv)));
  for (const r of runs) expect(r.status, r.stderr).toBe(0);
  expect(runs.map((r) => (JSON.parse(r.stdout) as { succeeded: number }).succeeded).reduce((a, b) => a + b, 0)).toBe(1);
  const renewals = await e.rows.all<{ id: string; status: number }>(
    "SELECT id, status FROM transactions WHERE subscription_id = ? AND payment_type = 'RENEWAL'",
    subscriptionId,
  );
  expect(renewals).toHaveLength(1);
  expect(renewals[0]?.status).toBe(200000);
  const card = await e.rows.get<{ stripe_customer_id: string }>(
    'SELECT c.stripe_customer_id FROM cards c JOIN subscriptions s ON s.card_id = c.id WHERE s.id = ?',
    subscriptionId,
  );
  const intent = await intentOf(e, renewals[0]?.id ?? '');
  expect(intent).toMatchObject({ status: 'succeeded', amount: 999 });
  expect(typeof intent.customer === 'string' ? intent.customer : intent.customer?.id).toBe(card?.stripe_customer_id);
}

/** The subscription's next billing time as the CLI prints it (the database's zone), ready for `renew --at`. */
async function nextBillingTime(e: StripeScenarioEnv, subscriptionId: string): Promise<string> {
  const r = await paygateAsync(['--db', e.db, '--json', 'sub', 'show', subscriptionId], e.cliEnv);
  expect(r.status, r.stderr).toBe(0);
  const next = (JSON.parse(r.stdout) as { nextBillingTime?: string }).nextBillingTime;
  expect(next, r.stdout).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
  return next ?? '';
}

/** The pending renewal record moved a minute into the past, written straight into the SQLite file. */
function moveRenewalIntoPast(e: StripeScenarioEnv, subscriptionId: string): void {
  if (e.engine !== 'sqlite')
    throw new Error('a renewal record is moved into the past in SQLite files only; use dueBy "clock"');
  const d = new Database(e.db);
  try {
    const moved = d
      .prepare(
        "UPDATE billing_records SET scheduled_time = ? WHERE subscription_id = ? AND status = 'PENDING' AND billing_type = 'RENEW'",
      )
      .run(Date.now() - 60_000, subscriptionId).changes;
    expect(moved).toBe(1);
  } finally {
    d.close();
  }
}

/** A paid PAY refunded in two parts: 400010 then 400000; Stripe holds two succeeded Refunds summing to the amount. */
export async function refundScenario(e: StripeScenarioEnv, txn: string): Promise<void> {
  const refund = (refundAmount: string) =>
    api(e).post(`/payment/${e.m.apiKey}/refund`, {
      transactionOrderId: txn,
      refundAmount,
      requestId: next(e, 'refund'),
    });
  const a = await refund('4.00');
  expect(a.body.data, a.text).toMatchObject({ status: '400010' });
  const b = await refund('8.34');
  expect(b.body.data, b.text).toMatchObject({ status: '400000' });
  const refs = (
    await e.rows.all<{ channel_ref: string }>(
      "SELECT channel_ref FROM refunds WHERE transaction_id = ? AND status = 'SUCCEEDED'",
      txn,
    )
  ).map((r) => r.channel_ref);
  expect(refs).toHaveLength(2);
  const refunds = await Promise.all(refs.map((id) => e.stripe.refunds.retrieve(id)));
  expect(refunds.every((r) => r.status === 'succeeded')).toBe(true);
  expect(refunds.reduce((s, r) => s + r.amount, 0)).toBe(1234);
}

/**
 * A fresh database (`engine`, default PAYGATE_TEST_ENGINE: a SQLite file or a new PostgreSQL
 * database), a merchant switched to Stripe with `secretKey` through the CLI (the key given on
 * stdin, checked by Stripe), and `serve` running. `apiUrl`: the stand-in; absent: Stripe itself.
 */
export async function startScenarioEnv(o: {
  secretKey: string;
  apiUrl?: string;
  engine?: TestEngine;
}): Promise<StripeScenarioEnv & { close: () => Promise<void> }> {
  const database = await shopDatabase({ engine: o.engine, prefix: 'paygate-stripe-scenarios-' });
  const db = database.db;
  const cliEnv: Record<string, string> = o.apiUrl ? { PAYGATE_STRIPE_API_URL: o.apiUrl } : {};
  let srv: Served | undefined;
  try {
    const m = createMerchant(db, 2, 'Scenario Shop');
    const up = await paygateAsync(
      ['--db', db, 'merchant', 'update', m.merchantId, '--channel', 'stripe', '--stripe-secret-key', '-'],
      cliEnv,
      { input: o.secretKey },
    );
    if (up.status !== 0) throw new Error(`merchant update failed: ${up.stderr.trim()}`);
    srv = await startServe({ dbPath: db, env: cliEnv });
    const endpoint = o.apiUrl ? new URL(o.apiUrl) : undefined;
    const stripe = new Stripe(o.secretKey, {
      maxNetworkRetries: 1,
      ...(endpoint ? { host: endpoint.hostname, port: Number(endpoint.port), protocol: 'http' as const } : {}),
    });
    const served = srv;
    return {
      srv: served,
      engine: database.engine,
      db,
      rows: database.rows,
      dueBy: o.apiUrl ? 'clock' : 'record',
      m,
      cliEnv,
      stripe,
      tag: `pg${Date.now().toString(36)}`,
      close: async () => {
        await served.stop();
        await database.drop();
      },
    };
  } catch (e) {
    await srv?.stop();
    await database.drop();
    throw e;
  }
}
