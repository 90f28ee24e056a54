import { afterEach, describe, expect, it } from 'vitest';
import type { Channel } from '../../src/channel/channel.js';
import { requireMerchant } from '../../src/services/merchants.js';
import { createCoupon } from '../../src/services/coupons.js';
import { createPlan } from '../../src/services/plans.js';
import { runRenewal } from '../../src/services/renew/index.js';
import { CHARGE_LEASE_MS, createTransaction } from '../../src/services/transactions/index.js';
import type { MerchantRow, Tx } from '../../src/store/store.js';
import { cardYear } from '../helpers/cards.js';
import { TEST_NOW, testApp, testMerchant, type TestApp } from '../helpers/ctx.js';
import { rowsOf } from '../helpers/rows.js';

/**
 * A PAY (or a subscription's first charge) whose process died between the sandbox charge and
 * recording it stays ACCEPTED with no channel result. The renewal run's housekeeping settles it
 * from the sandbox ledger once the charge lease has passed (docs/payments.md).
 */
let app: TestApp;
afterEach(async () => app?.close());

const card = (cardNumber: string) => JSON.stringify({ cardNumber, month: '12', year: cardYear(TEST_NOW), cvv: '123' });

/** The process "dies" inside the channel call: after the ledger write (charged) or before it. */
function dyingChannel(real: Channel, charged: boolean): { channel: Channel; reached: Promise<void> } {
  let reached = () => {};
  const promise = new Promise<void>((resolve) => {
    reached = resolve;
  });
  // Without prepareCharge: a processor's charge and its outcome are two writes, with the window
  // between them this file is about (the sandbox's own PAY writes both at once).
  const { prepareCharge: _, ...twoWrites } = real;
  const channel: Channel = {
    ...twoWrites,
    charge: async (req) => {
      if (charged) await real.charge(req);
      reached();
      return new Promise(() => {});
    },
  };
  return { channel, reached: promise };
}

async function cutOff(cardNumber: string, charged: boolean, input: Record<string, unknown> = {}) {
  app = await testApp();
  const ctx = app.ctx;
  const m = await requireMerchant(ctx, (await testMerchant(ctx, { notifyUrl: 'https://shop.example/n' })).merchantId);
  const real = ctx.channel;
  const dying = dyingChannel(real, charged);
  ctx.channel = dying.channel;
  const request = {
    requestId: 'r1',
    relationId: 'order-1',
    paymentType: 'PAY',
    payAmount: '12.34',
    currency: 'USD',
    cardInfo: card(cardNumber),
    ...input,
  };
  // Never settles: the process that sent it is gone.
  void createTransaction(ctx, m, request);
  await dying.reached;
  ctx.channel = real;
  const txn = await one<{ id: string }>('SELECT id FROM transactions');
  return { ctx, m, request, id: txn.id };
}

/** A subscription's first charge, as the API sends it (the tests cut it off at different points). */
const subscription = (planId: string, cardNumber = '4242424242424242') => ({
  requestId: 's1',
  relationId: 'sub-1',
  paymentType: 'SUBSCRIPTION',
  planId,
  userId: 'u1',
  cardInfo: card(cardNumber),
});

const one = async <T>(sql: string, ...a: unknown[]) => (await rowsOf(app.ctx).get(sql, ...a)) as T;
const status = async (id: string) =>
  await one<{ status: number; fail_reason: string | null }>(
    'SELECT status, fail_reason FROM transactions WHERE id = ?',
    id,
  );
const callbacks = async (id: string) =>
  (
    await rowsOf(app.ctx).all<{ payload: string }>(
      "SELECT payload FROM outbox_events WHERE kind = 'PAYMENT' AND transaction_id = ?",
      id,
    )
  ).map((r) => JSON.parse(r.payload) as Record<string, string>);
const approvedCharges = async (key: string) =>
  (
    await one<{ n: number | string }>(
      "SELECT count(*) AS n FROM sandbox_charges WHERE idempotency_key = ? AND kind = 'charge' AND outcome = 'approved'",
      key,
    )
  ).n;
const renewAfter = async (ms: number) => {
  app.clock.advance(ms);
  return runRenewal(app.ctx, { deliverCallbacks: false });
};

describe('renewal housekeeping settles sandbox charges a killed process never recorded', () => {
  it('a charge settled by housekeeping gets its invoice then, named in its callback', async () => {
    const { id } = await cutOff('4242424242424242', true);
    expect(await rowsOf(app.ctx).all('SELECT number FROM invoices')).toEqual([]);
    await renewAfter(CHARGE_LEASE_MS + 1);
    expect(await rowsOf(app.ctx).all('SELECT number, transaction_id FROM invoices')).toEqual([
      { number: 'INV-000001', transaction_id: id },
    ]);
    expect(await callbacks(id)).toEqual([expect.objectContaining({ invoiceNumber: 'INV-000001' })]);
  });

  it('an approved charge in the ledger past the lease becomes SUCCEEDED with its PAYMENT callback', async () => {
    const { id } = await cutOff('4242424242424242', true);
    expect(await status(id)).toMatchObject({ status: 100000 });
    await renewAfter(CHARGE_LEASE_MS + 1);
    expect(await status(id)).toEqual({ status: 200000, fail_reason: null });
    expect(await callbacks(id)).toEqual([expect.objectContaining({ status: '200000', payAmount: '12.34' })]);
    expect(Number(await approvedCharges(id))).toBe(1);
  });

  it('a declined charge in the ledger past the lease becomes FAILED with its reason and callback', async () => {
    const { id } = await cutOff('4000000000009995', true);
    await renewAfter(CHARGE_LEASE_MS + 1);
    expect(await status(id)).toEqual({ status: 300000, fail_reason: 'insufficient_funds' });
    expect(await callbacks(id)).toEqual([
      expect.objectContaining({ status: '300000', failReason: 'insufficient_funds' }),
    ]);
  });

  it('no charge in the ledger past the lease becomes FAILED (processing_error) with its callback', async () => {
    const { id } = await cutOff('4242424242424242', false);
    await renewAfter(CHARGE_LEASE_MS + 1);
    expect(await status(id)).toEqual({ status: 300000, fail_reason: 'processing_error' });
    expect(await callbacks(id)).toEqual([
      expect.objectContaining({ status: '300000', failReason: 'processing_error' }),
    ]);
    expect(Number(await approvedCharges(id))).toBe(0);
  });

  it('a charge still inside its lease is left alone', async () => {
    const { id } = await cutOff('4242424242424242', false);
    await renewAfter(CHARGE_LEASE_MS - 1000);
    expect(await status(id)).toMatchObject({ status: 100000 });
    expect(await callbacks(id)).toEqual([]);
    expect(Number((await one<{ n: number | string }>('SELECT count(*) AS n FROM sandbox_charges')).n)).toBe(0);
  });

  it('a repeat of the request after settlement answers the settled result and charges nothing', async () => {
    const { ctx, m, request, id } = await cutOff('4242424242424242', false);
    await renewAfter(CHARGE_LEASE_MS + 1);
    const again = await createTransaction(ctx, m, request);
    expect(again).toMatchObject({ transactionOrderId: id, status: '300000', failReason: 'processing_error' });
    expect(Number(await approvedCharges(id))).toBe(0);
    expect(await callbacks(id)).toHaveLength(1);
  });

  it('a late charge with the key of a transaction settled FAILED charges nothing', async () => {
    const { ctx, id } = await cutOff('4242424242424242', false);
    await renewAfter(CHARGE_LEASE_MS + 1);
    const late = await ctx.channel.charge({
      idempotencyKey: id,
      amount: 1234,
      currency: 'USD',
      card: { number: '4242424242424242', expMonth: 12, expYear: Number(cardYear(TEST_NOW)) },
      customerPresent: true,
    });
    expect(late).toMatchObject({ outcome: 'declined', reason: 'processing_error' });
    expect(Number(await approvedCharges(id))).toBe(0);
  });

  it("a subscription's first charge cut off after approval becomes SUCCEEDED and its subscription ACTIVE", async () => {
    app = await testApp();
    const p = await createPlan(app.ctx, (await testMerchant(app.ctx)).merchantId, {
      planName: 'Pro',
      price: '9.99',
      currency: 'USD',
      cycleType: 'MONTHLY',
      cycleLength: 1,
    });
    const merchantId = (await one<{ merchant_id: string }>('SELECT merchant_id FROM plans WHERE id = ?', p.planId))
      .merchant_id;
    const m: MerchantRow = await requireMerchant(app.ctx, merchantId);
    const real = app.ctx.channel;
    const dying = dyingChannel(real, true);
    app.ctx.channel = dying.channel;
    void createTransaction(app.ctx, m, { ...subscription(p.planId), payAmount: '9.99', currency: 'USD' });
    await dying.reached;
    app.ctx.channel = real;
    await renewAfter(CHARGE_LEASE_MS + 1);
    expect(
      await one(
        'SELECT t.status, s.status AS sub FROM transactions t JOIN subscriptions s ON s.id = t.subscription_id',
      ),
    ).toEqual({
      status: 200000,
      sub: 'ACTIVE',
    });
  });

  it("a subscription's first charge a coupon covers, cut off before it was recorded, becomes SUCCEEDED without the channel", async () => {
    app = await testApp();
    const { merchantId } = await testMerchant(app.ctx);
    const p = await createPlan(app.ctx, merchantId, {
      planName: 'Pro',
      price: '9.99',
      currency: 'USD',
      cycleType: 'MONTHLY',
      cycleLength: 1,
    });
    await createCoupon(app.ctx, merchantId, { code: 'FREE', percentOff: '100', duration: 'ONCE' });
    const m: MerchantRow = await requireMerchant(app.ctx, merchantId);
    // The process "dies" at the unit of work that would record the charge (the second one).
    const store = app.ctx.store;
    let units = 0;
    let reached = () => {};
    const cut = new Promise<void>((resolve) => {
      reached = resolve;
    });
    app.ctx.store = new Proxy(store, {
      get(target, prop) {
        if (prop === 'transaction')
          return <T>(fn: (tx: Tx) => Promise<T>): Promise<T> => {
            if (++units === 1) return target.transaction(fn);
            reached();
            return new Promise<T>(() => {});
          };
        const v = Reflect.get(target, prop) as unknown;
        return typeof v === 'function' ? v.bind(target) : v;
      },
    });
    void createTransaction(app.ctx, m, { ...subscription(p.planId, '4000000000000002'), couponCode: 'FREE' });
    await cut;
    app.ctx.store = store;
    expect(await one('SELECT status FROM transactions')).toEqual({ status: 100000 });
    await renewAfter(CHARGE_LEASE_MS + 1);
    expect(
      await one(
        'SELECT t.status, t.amount, s.status AS sub FROM transactions t JOIN subscriptions s ON s.id = t.subscription_id',
      ),
    ).toEqual({ status: 200000, amount: 0, sub: 'ACTIVE' });
    expect(Number((await one<{ n: number | string }>('SELECT count(*) AS n FROM sandbox_charges')).n)).toBe(0);
  });
});
