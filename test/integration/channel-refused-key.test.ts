import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { refundTransaction } from '../../src/services/refund.js';
import { requireMerchant, updateMerchant } from '../../src/services/merchants.js';
import { createPlan } from '../../src/services/plans.js';
import { createTransaction } from '../../src/services/transactions/index.js';
import { cardYear } from '../helpers/cards.js';
import { CLOSED_NOTIFY_URL, testApp, testMerchant, TEST_NOW, type TestApp } from '../helpers/ctx.js';
import { rowsOf } from '../helpers/rows.js';
import { startStripeStandin, type StripeStandin } from '../helpers/stripe-standin/index.js';

/**
 * A key Stripe refuses undoes the whole request, on either engine: nothing half-written, so the
 * same request works once the key is fixed (the end-to-end version: test/e2e/stripe-key-faults).
 */
let stripe: StripeStandin;
let app: TestApp;
const before = process.env.PAYGATE_STRIPE_API_URL;

beforeAll(async () => {
  stripe = await startStripeStandin();
  process.env.PAYGATE_STRIPE_API_URL = stripe.url;
});
afterEach(async () => app?.close());
afterAll(async () => {
  if (before === undefined) delete process.env.PAYGATE_STRIPE_API_URL;
  else process.env.PAYGATE_STRIPE_API_URL = before;
  await stripe.close();
});

const card = () =>
  JSON.stringify({ cardNumber: '4242424242424242', month: '12', year: cardYear(TEST_NOW), cvv: '123' });

async function setup() {
  app = await testApp();
  const ctx = app.ctx;
  const acct = stripe.createAccount();
  const id = (await testMerchant(ctx, { notifyUrl: CLOSED_NOTIFY_URL })).merchantId;
  await updateMerchant(ctx, id, { channel: 'stripe', stripeSecretKey: acct.secretKey });
  const merchant = () => requireMerchant(ctx, id);
  const fixKey = async () => updateMerchant(ctx, id, { stripeSecretKey: acct.rollKey() });
  const count = async (table: string) =>
    ((await rowsOf(ctx).get(`SELECT count(*) AS c FROM ${table} WHERE merchant_id = ?`, id)) as { c: number | string })
      .c;
  return { ctx, acct, id, merchant, fixKey, count };
}

describe('a key Stripe refuses (store engines)', () => {
  it('SUBSCRIPTION: 9999; its transaction, subscription, INITIAL record, card row, plan place and requestId all go', async () => {
    const { ctx, acct, id, merchant, fixKey, count } = await setup();
    const plan = await createPlan(ctx, id, {
      planName: 'Monthly',
      price: '9.99',
      currency: 'USD',
      cycleType: 'MONTHLY',
      cycleLength: 1,
      maxSubscriptions: 1,
    });
    acct.revokeKey();
    const body = {
      requestId: 's1',
      relationId: 's1',
      paymentType: 'SUBSCRIPTION',
      planId: plan.planId,
      userId: 'u1',
      cardInfo: card(),
    };
    await expect(createTransaction(ctx, await merchant(), body)).rejects.toMatchObject({ code: '9999' });
    for (const t of ['transactions', 'subscriptions', 'billing_records', 'cards', 'idempotency_keys'])
      expect(Number(await count(t)), t).toBe(0);
    const slots = (await rowsOf(ctx).get('SELECT current_subscriptions AS n FROM plans WHERE id = ?', plan.planId)) as {
      n: number | string;
    };
    expect(Number(slots.n)).toBe(0);
    await fixKey();
    const again = await createTransaction(ctx, await merchant(), body);
    expect(again).toMatchObject({ status: '200000' });
    expect(Number(await count('subscriptions'))).toBe(1);
  });

  it('refund: 9999; the refund row and its requestId go and the reservation is released; the same request refunds once the key is fixed', async () => {
    const { ctx, acct, merchant, fixKey, count } = await setup();
    const paid = await createTransaction(ctx, await merchant(), {
      requestId: 'p1',
      relationId: 'p1',
      paymentType: 'PAY',
      payAmount: '10.00',
      currency: 'USD',
      cardInfo: card(),
    });
    expect(paid.status).toBe('200000');
    acct.revokeKey();
    const body = { transactionOrderId: paid.transactionOrderId, refundAmount: '10.00', requestId: 'r1' };
    await expect(refundTransaction(ctx, await merchant(), body)).rejects.toMatchObject({ code: '9999' });
    expect(Number(await count('refunds'))).toBe(0);
    const t = (await rowsOf(ctx).get(
      'SELECT status, refund_reserved AS reserved FROM transactions WHERE id = ?',
      paid.transactionOrderId,
    )) as { status: number | string; reserved: number | string };
    expect([Number(t.status), Number(t.reserved)]).toEqual([200000, 0]);
    await fixKey();
    expect(await refundTransaction(ctx, await merchant(), body)).toMatchObject({ status: '400000' });
  });
});
