import { rowsOf } from '../helpers/rows.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createTransaction } from '../../src/services/transactions/index.js';
import { refundTransaction, resumeStaleRefunds, STALE_REFUND_MS } from '../../src/services/refund.js';
import { runRenewal } from '../../src/services/renew/index.js';
import { requireMerchant } from '../../src/services/merchants.js';
import { createPlan } from '../../src/services/plans.js';
import { CLOSED_NOTIFY_URL, testApp, testMerchant, type TestApp, TEST_NOW } from '../helpers/ctx.js';
import { cardYear } from '../helpers/cards.js';

let app: TestApp;
afterEach(async () => app?.close());

const card = (cardNumber = '4242424242424242') =>
  JSON.stringify({ cardNumber, month: '12', year: cardYear(TEST_NOW), cvv: '123' });
let seq = 0;

async function setup() {
  app = await testApp();
  const ctx = app.ctx;
  const m = await requireMerchant(ctx, (await testMerchant(ctx, { notifyUrl: CLOSED_NOTIFY_URL })).merchantId);
  const pay = (over: Record<string, unknown> = {}) => {
    seq++;
    return createTransaction(ctx, m, {
      requestId: `p${seq}`,
      relationId: `o${seq}`,
      paymentType: 'PAY',
      payAmount: '10.00',
      currency: 'USD',
      cardInfo: card(),
      ...over,
    });
  };
  const refund = (over: Record<string, unknown>) => refundTransaction(ctx, m, { merchantId: m.id, ...over });
  return { ctx, m, pay, refund };
}

const row = async (id: string) =>
  (await rowsOf(app.ctx).get(
    'SELECT status, refunded_amount AS refunded, refund_reserved AS reserved FROM transactions WHERE id = ?',
    id,
  )) as { status: number; refunded: number; reserved: number };

describe('refunds', () => {
  it('partial then the rest: 400010 then 400000; response carries this refund’s amount', async () => {
    const { pay, refund } = await setup();
    const t = await pay();
    const a = await refund({ transactionOrderId: t.transactionOrderId, refundAmount: '4.00' });
    expect(a).toMatchObject({
      transactionOrderId: t.transactionOrderId,
      relationId: t.relationId,
      status: '400010',
      payAmount: '4.00',
      currency: 'USD',
    });
    expect(a.refundTransactionId).toMatch(/^rfd_/);
    const b = await refund({ relationId: t.relationId, refundAmount: '6.00' });
    expect(b.status).toBe('400000');
    expect(await row(t.transactionOrderId)).toEqual({ status: 400000, refunded: 1000, reserved: 0 });
  });

  it('beyond the paid amount is 1010 and reserves nothing', async () => {
    const { pay, refund } = await setup();
    const t = await pay();
    await refund({ transactionOrderId: t.transactionOrderId, refundAmount: '4.00' });
    await expect(refund({ transactionOrderId: t.transactionOrderId, refundAmount: '7.00' })).rejects.toMatchObject({
      code: '1010',
    });
    expect(await row(t.transactionOrderId)).toEqual({ status: 400010, refunded: 400, reserved: 0 });
  });

  it('only SUCCEEDED / PARTIALLY_REFUNDED transactions: 1008 otherwise', async () => {
    const { pay, refund } = await setup();
    const declined = await pay({ cardInfo: card('4000000000000002') });
    await expect(
      refund({ transactionOrderId: declined.transactionOrderId, refundAmount: '1.00' }),
    ).rejects.toMatchObject({ code: '1008' });
    const threeDs = await pay({ cardInfo: card('4000000000003220') });
    await expect(
      refund({ transactionOrderId: threeDs.transactionOrderId, refundAmount: '1.00' }),
    ).rejects.toMatchObject({ code: '1008' });
    const full = await pay();
    await refund({ transactionOrderId: full.transactionOrderId, refundAmount: '10.00' });
    await expect(refund({ transactionOrderId: full.transactionOrderId, refundAmount: '0.01' })).rejects.toMatchObject({
      code: '1008',
    });
  });

  it('both ids not naming one transaction is 1001; neither is 1001; unknown or foreign is 1007', async () => {
    const { ctx, pay, refund } = await setup();
    const a = await pay();
    const b = await pay();
    await expect(
      refund({ transactionOrderId: a.transactionOrderId, relationId: b.relationId, refundAmount: '1.00' }),
    ).rejects.toMatchObject({ code: '1001' });
    await expect(refund({ refundAmount: '1.00' })).rejects.toMatchObject({ code: '1001' });
    // One naming the transaction and the other nothing: they do not name the same one either way.
    await expect(
      refund({ transactionOrderId: 'txn_nope', relationId: b.relationId, refundAmount: '1.00' }),
    ).rejects.toMatchObject({ code: '1001', message: expect.stringContaining('transactionOrderId') });
    await expect(
      refund({ transactionOrderId: a.transactionOrderId, relationId: 'nope', refundAmount: '1.00' }),
    ).rejects.toMatchObject({ code: '1001', message: expect.stringContaining('relationId') });
    await expect(
      refund({ transactionOrderId: 'txn_nope', relationId: 'nope', refundAmount: '1.00' }),
    ).rejects.toMatchObject({
      code: '1007',
    });
    await expect(refund({ transactionOrderId: 'txn_nope', refundAmount: '1.00' })).rejects.toMatchObject({
      code: '1007',
    });
    const other = await requireMerchant(ctx, (await testMerchant(ctx, { name: 'Other' })).merchantId);
    await expect(
      refundTransaction(ctx, other, { transactionOrderId: a.transactionOrderId, refundAmount: '1.00' }),
    ).rejects.toMatchObject({ code: '1007' });
    expect((await row(a.transactionOrderId)).refunded).toBe(0);
  });

  it.each([['0'], ['0.00'], ['-1.00'], ['1.001'], ['abc'], [5]])('refundAmount %s is 1001', async (amt) => {
    const { pay, refund } = await setup();
    const t = await pay();
    await expect(refund({ transactionOrderId: t.transactionOrderId, refundAmount: amt })).rejects.toMatchObject({
      code: '1001',
      field: 'refundAmount',
    });
  });

  it('requestId makes a refund idempotent in its own namespace; different fields → 1006', async () => {
    const { ctx, pay, refund } = await setup();
    const t = await pay({ requestId: 'same-id' });
    const r = { transactionOrderId: t.transactionOrderId, refundAmount: '3.00', requestId: 'same-id' };
    const a = await refund(r);
    const b = await refund(r);
    expect(b.refundTransactionId).toBe(a.refundTransactionId);
    expect((await row(t.transactionOrderId)).refunded).toBe(300);
    await expect(refund({ ...r, refundAmount: '2.00' })).rejects.toMatchObject({ code: '1006' });
    expect(
      ((await rowsOf(ctx).get("SELECT count(*) AS n FROM sandbox_charges WHERE kind = 'refund'")) as { n: number }).n,
    ).toBe(1);
  });

  it('every refund writes a PAYMENT callback with the refunded amount', async () => {
    const { ctx, pay, refund } = await setup();
    const t = await pay();
    await refund({ transactionOrderId: t.transactionOrderId, refundAmount: '2.50' });
    const last = (await rowsOf(ctx).get('SELECT payload FROM outbox_events ORDER BY seq DESC LIMIT 1')) as {
      payload: string;
    };
    expect(JSON.parse(last.payload)).toMatchObject({ notifyType: 'PAYMENT', status: '400010', refundedAmount: '2.50' });
  });

  it('a refund the channel fails releases its reservation', async () => {
    const { ctx, pay, refund } = await setup();
    const t = await pay();
    const real = ctx.channel;
    ctx.channel = {
      name: real.name,
      charge: real.charge,
      completeAction: real.completeAction,
      refund: async () => ({ outcome: 'failed', reason: 'channel_unavailable' }),
    };
    await expect(refund({ transactionOrderId: t.transactionOrderId, refundAmount: '10.00' })).rejects.toMatchObject({
      code: '1008',
    });
    expect(await row(t.transactionOrderId)).toEqual({ status: 200000, refunded: 0, reserved: 0 });
    ctx.channel = real;
    expect((await refund({ transactionOrderId: t.transactionOrderId, refundAmount: '10.00' })).status).toBe('400000');
  });

  it('a refund whose channel call threw stays PENDING with its amount reserved, then the renewal run settles it once', async () => {
    const { ctx, pay, refund } = await setup();
    const t = await pay();
    const real = ctx.channel;
    // The channel refunded, but the answer was lost (a timeout after the fact).
    ctx.channel = {
      ...real,
      refund: async (req) => {
        await real.refund(req);
        throw new Error('socket hang up');
      },
    };
    await expect(refund({ transactionOrderId: t.transactionOrderId, refundAmount: '4.00' })).rejects.toThrow();
    ctx.channel = real;
    expect(await row(t.transactionOrderId)).toEqual({ status: 200000, refunded: 0, reserved: 400 });
    // Still under way as far as anyone can tell: a run right away leaves it alone.
    await runRenewal(ctx);
    expect(await row(t.transactionOrderId)).toEqual({ status: 200000, refunded: 0, reserved: 400 });

    app.clock.advance(STALE_REFUND_MS + 1);
    await runRenewal(ctx);
    expect(await row(t.transactionOrderId)).toEqual({ status: 400010, refunded: 400, reserved: 0 });
    const refunds = await rowsOf(ctx).all('SELECT status FROM refunds WHERE transaction_id = ?', t.transactionOrderId);
    expect(refunds).toEqual([{ status: 'SUCCEEDED' }]);
    // The channel moved the money once: the resumed call got the first result by its idempotency key.
    expect(await rowsOf(ctx).get("SELECT count(*) AS n FROM sandbox_charges WHERE kind = 'refund'")).toEqual({ n: 1 });
    await runRenewal(ctx);
    expect(await row(t.transactionOrderId)).toEqual({ status: 400010, refunded: 400, reserved: 0 });
  });

  it('a resumed refund the channel still cannot reach stays PENDING for the next run', async () => {
    const { ctx, pay, refund } = await setup();
    const t = await pay();
    const real = ctx.channel;
    ctx.channel = { ...real, refund: () => Promise.reject(new Error('connect ECONNREFUSED')) };
    await expect(refund({ transactionOrderId: t.transactionOrderId, refundAmount: '10.00' })).rejects.toThrow();
    app.clock.advance(STALE_REFUND_MS + 1);
    await expect(resumeStaleRefunds(ctx)).resolves.toEqual({ settled: 0, stillPending: 1 });
    expect(await row(t.transactionOrderId)).toEqual({ status: 200000, refunded: 0, reserved: 1000 });
    ctx.channel = real;
    await expect(resumeStaleRefunds(ctx)).resolves.toEqual({ settled: 1, stillPending: 0 });
    expect(await row(t.transactionOrderId)).toEqual({ status: 400000, refunded: 1000, reserved: 0 });
  });

  it('refunding a subscription charge does not change the subscription', async () => {
    const { ctx, m, refund } = await setup();
    const p = await createPlan(ctx, m.id, {
      planName: 'P',
      price: '9.00',
      currency: 'USD',
      cycleType: 'MONTHLY',
      cycleLength: 1,
    });
    const t = await createTransaction(ctx, m, {
      requestId: 's',
      relationId: 's',
      paymentType: 'SUBSCRIPTION',
      planId: p.planId,
      userId: 'u',
      cardInfo: card(),
    });
    const before = await rowsOf(ctx).get('SELECT * FROM subscriptions');
    await refund({ transactionOrderId: t.transactionOrderId, refundAmount: '9.00' });
    expect(await rowsOf(ctx).get('SELECT * FROM subscriptions')).toEqual(before);
  });

  it('20 concurrent partial refunds whose sum exceeds the paid amount never exceed it', async () => {
    const { ctx, pay, refund } = await setup();
    const t = await pay();
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, () => refund({ transactionOrderId: t.transactionOrderId, refundAmount: '0.75' })),
    );
    const ok = results.filter((r) => r.status === 'fulfilled').length;
    expect(ok).toBe(13); // 13 × 0.75 = 9.75 ≤ 10.00 < 14 × 0.75
    expect(
      results.filter((r) => r.status === 'rejected').every((r) => (r as PromiseRejectedResult).reason.code === '1010'),
    ).toBe(true);
    expect(await row(t.transactionOrderId)).toEqual({ status: 400010, refunded: 975, reserved: 0 });
    const moved = (await rowsOf(ctx).get(
      "SELECT CAST(sum(amount) AS BIGINT) AS s FROM sandbox_charges WHERE kind = 'refund' AND outcome = 'approved'",
    )) as { s: number };
    expect(moved.s).toBe(975);
  });
});
