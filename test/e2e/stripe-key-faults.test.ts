import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paygateAsync } from '../helpers/cli-async.js';
import { type ShopDatabase, shopDatabase } from '../helpers/shop-db.js';
import { startStripeStandin, type StandinAccount, type StripeStandin } from '../helpers/stripe-standin/index.js';
import { client, createMerchant, raw, startServe, type Served, type TestMerchant } from '../helpers/serve.js';
import { MERCHANT_FRESH_MS } from '../../src/services/merchant-cache.js';

/**
 * A merchant's Stripe key stops working (revoked or rolled in the dashboard: 401; a restricted key
 * without a permission: 403): every flow through `serve` and `paygate renew` refuses cleanly, writes
 * nothing half-way, and works again — exactly once — after `merchant update` gives a working key.
 */
let stripe: StripeStandin;
let srv: Served;
let db: string;
let shop: ShopDatabase;
let env: Record<string, string>;
let n = 0;

beforeAll(async () => {
  stripe = await startStripeStandin();
  env = { PAYGATE_STRIPE_API_URL: stripe.url };
  shop = await shopDatabase({ prefix: 'paygate-stripe-keys-' });
  db = shop.db;
  createMerchant(db, 2, 'First'); // creates the database before serve opens it
  srv = await startServe({ dbPath: db, env });
});
afterAll(async () => {
  await srv?.stop();
  await stripe.close();
  await shop?.drop();
});

const cli = (args: string[]) => paygateAsync(['--db', db, ...args], env);
const rows = <T>(sql: string, ...args: unknown[]): Promise<T[]> => shop.rows.all<T>(sql, ...args);
const count = async (sql: string, ...args: unknown[]) => (await rows<{ c: number }>(sql, ...args))[0]?.c ?? -1;
const YEAR = String(new Date().getUTCFullYear() + 2);
const card = (cardNumber = '4242424242424242') =>
  JSON.stringify({ holderName: 'Ada Lovelace', cardNumber, month: '12', year: YEAR, cvv: '123' });
const at = (d: DateTime) => d.toFormat('yyyy-MM-dd HH:mm:ss');

/**
 * The key changed by another process (the CLI), as an operator changes it: `serve` sees it once
 * the merchant's row it keeps in memory is older than MERCHANT_FRESH_MS, its documented bound.
 * Waited out here; on a fast machine the CLI can finish inside it.
 */
async function setKey(m: TestMerchant, key: string): Promise<void> {
  const r = await cli(['merchant', 'update', m.merchantId, '--channel', 'stripe', '--stripe-secret-key', key]);
  if (r.status !== 0) throw new Error(`merchant update failed: ${r.stderr}`);
  await new Promise((resolve) => setTimeout(resolve, MERCHANT_FRESH_MS + 50));
}

async function stripeMerchant(
  acct = stripe.createAccount(),
  key = acct.secretKey,
): Promise<{ m: TestMerchant; acct: StandinAccount }> {
  n++;
  const m = createMerchant(db, 2, `Shop ${n}`);
  await setKey(m, key);
  return { m, acct };
}

/** The account's intents and the calls Stripe ran with this account (401/403 answers excluded). */
const intentsOf = (acct: StandinAccount) => acct.state.intents.size;

describe('merchant update with a key Stripe refuses (CLI)', () => {
  it('a restricted key that may not read the balance (403): one-line error naming the permission, the merchant left as it was', async () => {
    const { m, acct } = await stripeMerchant();
    const rk = acct.createRestrictedKey(['balance']);
    const r = await cli(['merchant', 'update', m.merchantId, '--stripe-secret-key', rk]);
    expect(r.status).not.toBe(0);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/may not read the balance/);
    expect(r.stderr).not.toContain(rk);
    const shown = await cli(['--json', 'merchant', 'show', m.merchantId]);
    // Still the first key, still on Stripe.
    expect(JSON.parse(shown.stdout)).toMatchObject({
      channel: 'stripe',
      stripeSecretKey: `sk_test_…${acct.secretKey.slice(-4)}`,
    });
  });

  it('a rolled key given to a merchant already on Stripe (401): refused, the working key kept', async () => {
    const { m, acct } = await stripeMerchant();
    const old = acct.secretKey;
    acct.rollKey();
    const r = await cli(['merchant', 'update', m.merchantId, '--stripe-secret-key', old]);
    expect(r.status).not.toBe(0);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/Stripe rejected the key: Expired API Key provided: sk_test_\*+/);
    expect(r.stderr).not.toContain(old);
  });
});

describe('PAY with a refused key (serve)', () => {
  it.each([
    ['revoked (401)', 'revoked'],
    ['restricted without PaymentIntents (403)', 'restricted'],
  ] as const)(
    '%s: 9999 with the reason, nothing written; the same request succeeds once the key is fixed',
    async (_name, kind) => {
      const account = stripe.createAccount();
      const { m } = await stripeMerchant(
        account,
        kind === 'restricted' ? account.createRestrictedKey(['payment_intents']) : account.secretKey,
      );
      if (kind === 'revoked') account.revokeKey();
      const body = {
        requestId: `pay-${kind}`,
        relationId: `pay-${kind}`,
        paymentType: 'PAY',
        payAmount: '12.34',
        currency: 'USD',
        cardInfo: card(),
      };
      const r = await client(srv.url, m).post(`/payment/${m.apiKey}/transaction`, body);
      expect(r.status).toBe(500);
      expect(r.body.rtn_code).toBe('9999');
      expect(r.body.rtn_msg).toMatch(kind === 'revoked' ? /refused.*Expired API Key/ : /refused.*permission/);
      expect(r.text).not.toContain(account.secretKey);
      expect(await count('SELECT count(*) AS c FROM transactions WHERE merchant_id = ?', m.merchantId)).toBe(0);
      expect(
        await count(
          "SELECT count(*) AS c FROM idempotency_keys WHERE merchant_id = ? AND scope = 'transaction'",
          m.merchantId,
        ),
      ).toBe(0);
      expect([...account.state.intents.values()].filter((i) => i.status !== 'requires_payment_method')).toHaveLength(0);

      await setKey(m, kind === 'revoked' ? account.rollKey() : account.secretKey);
      const again = await client(srv.url, m).post(`/payment/${m.apiKey}/transaction`, body);
      expect(again.body.rtn_code, again.text).toBe('0000');
      expect(again.body.data).toMatchObject({ status: '200000', payAmount: '12.34' });
      expect([...account.state.intents.values()].filter((i) => i.status === 'succeeded')).toHaveLength(1);
      expect(await count('SELECT count(*) AS c FROM transactions WHERE merchant_id = ?', m.merchantId)).toBe(1);
    },
  );
});

describe('SUBSCRIPTION with a revoked key (serve)', () => {
  it('9999; no transaction, subscription, record, card row or plan place is left; the same request starts it once the key is fixed', async () => {
    const { m, acct } = await stripeMerchant();
    const c = client(srv.url, m);
    const plan = await c.post('/subscription/plan/create', {
      planName: 'Monthly',
      price: '9.99',
      currency: 'USD',
      cycleType: 'MONTHLY',
      cycleLength: 1,
      maxSubscriptions: 1,
    });
    const planId = plan.body.data.planId as string;
    acct.revokeKey();
    const body = { requestId: 'sub-1', relationId: 'sub-1', planId, userId: 'u-1', cardInfo: card() };
    const r = await c.post('/subscription/create', body);
    expect(r.body.rtn_code).toBe('9999');
    expect(r.body.rtn_msg).toContain('refused');
    for (const table of ['transactions', 'subscriptions', 'billing_records', 'cards']) {
      expect(await count(`SELECT count(*) AS c FROM ${table} WHERE merchant_id = ?`, m.merchantId), table).toBe(0);
    }
    expect(
      (await rows<{ current_subscriptions: number }>('SELECT current_subscriptions FROM plans WHERE id = ?', planId))[0]
        ?.current_subscriptions,
    ).toBe(0);
    expect(await count('SELECT count(*) AS c FROM outbox_events WHERE merchant_id = ?', m.merchantId)).toBe(0);
    expect(intentsOf(acct)).toBe(0);

    await setKey(m, acct.rollKey());
    const again = await c.post('/subscription/create', body);
    expect(again.body.rtn_code, again.text).toBe('0000');
    expect(again.body.data).toMatchObject({ status: '200000' });
    // maxSubscriptions 1: the refused attempt held no place.
    expect(
      await rows<{ status: string }>('SELECT status FROM subscriptions WHERE merchant_id = ?', m.merchantId),
    ).toEqual([{ status: 'ACTIVE' }]);
    expect(
      (await rows<{ current_subscriptions: number }>('SELECT current_subscriptions FROM plans WHERE id = ?', planId))[0]
        ?.current_subscriptions,
    ).toBe(1);
  });
});

describe('CHECKOUT with a revoked key (hosted page)', () => {
  it('the card entered on the page is not charged: the checkout ends FAILED processing_error and leaves through failedUrl', async () => {
    const { m, acct } = await stripeMerchant();
    const t = await client(srv.url, m).post(`/payment/${m.apiKey}/transaction`, {
      requestId: 'co-1',
      relationId: 'co-1',
      paymentType: 'CHECKOUT',
      payAmount: '5.00',
      currency: 'USD',
      failedUrl: 'https://shop.example.test/failed',
    });
    expect(t.body.data.status).toBe('100050');
    acct.revokeKey();
    const pageUrl = new URL(t.body.data.url as string);
    const page = await raw(`${srv.url}${pageUrl.pathname}`);
    const csrf = /name="csrf" value="([^"]+)"/.exec(page.text)?.[1] ?? '';
    const form = new URLSearchParams({
      csrf,
      action: 'pay',
      holderName: 'Ada',
      cardNumber: '4242 4242 4242 4242',
      month: '12',
      year: YEAR,
      cvv: '123',
    });
    const sent = await fetch(`${srv.url}${pageUrl.pathname}`, { method: 'POST', body: form, redirect: 'manual' });
    expect(sent.status).toBe(303);
    expect(sent.headers.get('location')).toContain('https://shop.example.test/failed');
    const q = await client(srv.url, m).get(`/payment/${m.apiKey}/transaction/query`, {
      transactionOrderId: t.body.data.transactionOrderId,
    });
    expect(q.body.data).toMatchObject({ status: '300000', failReason: 'processing_error' });
    expect(intentsOf(acct)).toBe(0);
  });
});

describe('refund with a revoked key (serve)', () => {
  it('9999, no refund row, nothing reserved; the same refund request works once the key is fixed', async () => {
    const { m, acct } = await stripeMerchant();
    const c = client(srv.url, m);
    const p = await c.post(`/payment/${m.apiKey}/transaction`, {
      requestId: 'p-r',
      relationId: 'p-r',
      paymentType: 'PAY',
      payAmount: '10.00',
      currency: 'USD',
      cardInfo: card(),
    });
    const txn = p.body.data.transactionOrderId as string;
    expect(p.body.data.status).toBe('200000');
    acct.revokeKey();
    const body = { transactionOrderId: txn, refundAmount: '4.00', requestId: 'refund-1' };
    const r = await c.post(`/payment/${m.apiKey}/refund`, body);
    expect(r.body.rtn_code).toBe('9999');
    expect(r.body.rtn_msg).toMatch(/refused the refund, nothing was refunded/);
    expect(await count('SELECT count(*) AS c FROM refunds WHERE transaction_id = ?', txn)).toBe(0);
    expect(await rows('SELECT status, refunded_amount, refund_reserved FROM transactions WHERE id = ?', txn)).toEqual([
      { status: 200000, refunded_amount: 0, refund_reserved: 0 },
    ]);
    expect(acct.state.refunds.size).toBe(0);

    await setKey(m, acct.rollKey());
    const again = await c.post(`/payment/${m.apiKey}/refund`, body);
    expect(again.body.rtn_code, again.text).toBe('0000');
    expect(again.body.data).toMatchObject({ status: '400010', payAmount: '4.00' });
    expect(acct.state.refunds.size).toBe(1);
  });
});

describe('renewal with a revoked key (paygate renew)', () => {
  it('nothing recorded while the key is refused; a run after the lease, with the key fixed, charges it exactly once', async () => {
    const { m, acct } = await stripeMerchant();
    const c = client(srv.url, m);
    const plan = await c.post('/subscription/plan/create', {
      planName: 'Monthly',
      price: '9.99',
      currency: 'USD',
      cycleType: 'MONTHLY',
      cycleLength: 1,
    });
    const sub = await c.post('/subscription/create', {
      requestId: 'rs-1',
      relationId: 'rs-1',
      planId: plan.body.data.planId,
      userId: 'u-r',
      cardInfo: card(),
    });
    expect(sub.body.data.status).toBe('200000');
    const subId = sub.body.data.subscriptionId as string;
    const intentsBefore = intentsOf(acct);
    acct.revokeKey();

    const due = DateTime.utc().plus({ days: 32 });
    const first = await cli(['--json', 'renew', '--at', at(due)]);
    expect(first.status, first.stderr).toBe(0);
    // (Run summaries count every merchant in this database; this subscription is checked by its rows.)
    // The record waits (claimed, not failed); the subscription is untouched; no retry scheduled.
    expect(
      await rows<{ status: string }>(
        "SELECT status FROM billing_records WHERE subscription_id = ? AND billing_type <> 'INITIAL'",
        subId,
      ),
    ).toEqual([{ status: 'PENDING' }]);
    expect(await rows('SELECT status, failed_count FROM subscriptions WHERE id = ?', subId)).toEqual([
      { status: 'ACTIVE', failed_count: 0 },
    ]);
    expect(
      await count(
        "SELECT count(*) AS c FROM transactions WHERE subscription_id = ? AND payment_type = 'RENEWAL' AND status <> 100000",
        subId,
      ),
    ).toBe(0);
    expect(intentsOf(acct)).toBe(intentsBefore);

    await setKey(m, acct.rollKey());
    // Within the lease the record is still held by the first run: nothing is charged yet.
    const held = await cli(['--json', 'renew', '--at', at(due.plus({ minutes: 5 }))]);
    expect(held.status, held.stderr).toBe(0);
    expect(intentsOf(acct)).toBe(intentsBefore);
    expect(
      await rows<{ status: string }>(
        "SELECT status FROM billing_records WHERE subscription_id = ? AND billing_type <> 'INITIAL'",
        subId,
      ),
    ).toEqual([{ status: 'PENDING' }]);
    const runs = await Promise.all([1, 2].map(() => cli(['--json', 'renew', '--at', at(due.plus({ minutes: 11 }))])));
    for (const r of runs) expect(r.status, r.stderr).toBe(0);
    const fresh = [...acct.state.intents.values()].slice(intentsBefore);
    expect(fresh).toHaveLength(1);
    expect(fresh[0]).toMatchObject({ offSession: true, status: 'succeeded', amount: 999 });
    expect(
      (
        await rows<{ status: string }>(
          "SELECT status FROM billing_records WHERE subscription_id = ? AND billing_type = 'RENEW' ORDER BY scheduled_time",
          subId,
        )
      ).map((r) => r.status),
    ).toEqual(['SUCCESS', 'PENDING']);
    expect(
      await rows(
        "SELECT status, channel_ref FROM transactions WHERE subscription_id = ? AND payment_type = 'RENEWAL'",
        subId,
      ),
    ).toEqual([{ status: 200000, channel_ref: fresh[0]?.id }]);
  });
});

describe("renewal after the merchant's key was switched to another Stripe account", () => {
  it("the stored Customer is not the new account's (No such customer): the renewal is declined processing_error and a retry is scheduled, not left in progress", async () => {
    const { m, acct } = await stripeMerchant();
    const c = client(srv.url, m);
    const plan = await c.post('/subscription/plan/create', {
      planName: 'Monthly',
      price: '9.99',
      currency: 'USD',
      cycleType: 'MONTHLY',
      cycleLength: 1,
    });
    const sub = await c.post('/subscription/create', {
      requestId: 'sw-1',
      relationId: 'sw-1',
      planId: plan.body.data.planId,
      userId: 'u-sw',
      cardInfo: card(),
    });
    expect(sub.body.data.status).toBe('200000');
    const subId = sub.body.data.subscriptionId as string;
    const intentsBefore = intentsOf(acct);
    const other = stripe.createAccount();
    await setKey(m, other.secretKey);

    const r = await cli(['--json', 'renew', '--at', at(DateTime.utc().plus({ days: 32 }))]);
    expect(r.status, r.stderr).toBe(0);
    const recs = await rows<{ billing_type: string; status: string; fail_reason: string | null; ts: number | null }>(
      "SELECT r.billing_type, r.status, t.status AS ts, t.fail_reason FROM billing_records r LEFT JOIN transactions t ON t.id = r.transaction_id WHERE r.subscription_id = ? AND r.billing_type <> 'INITIAL' ORDER BY r.scheduled_time",
      subId,
    );
    expect(recs[0]).toEqual({ billing_type: 'RENEW', status: 'FAILED', ts: 300000, fail_reason: 'processing_error' });
    expect(recs.some((x) => x.billing_type === 'RETRY' && x.status === 'PENDING')).toBe(true);
    expect(intentsOf(acct)).toBe(intentsBefore);
    expect(intentsOf(other)).toBe(0);
  });
});
