import { rowsOf } from '../helpers/rows.js';
import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { createTransaction } from '../../src/services/transactions/index.js';
import { uploadTracking } from '../../src/services/tracking.js';
import { requireMerchant } from '../../src/services/merchants.js';
import { testApp, testMerchant, type TestApp, TEST_NOW } from '../helpers/ctx.js';
import { cardYear } from '../helpers/cards.js';

let app: TestApp;
afterEach(async () => app?.close());

/** SERVICE.md's rule written out independently: values sorted by field name, concatenated, + secret, SHA-256 hex. */
function expectedSign(
  d: { successCount: number; failedCount: number; failedOrders: string[] },
  secret: string,
): string {
  const text = `${d.failedCount}${JSON.stringify(d.failedOrders)}${d.successCount}${secret}`;
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

async function setup() {
  app = await testApp();
  const ctx = app.ctx;
  const created = await testMerchant(ctx);
  const m = await requireMerchant(ctx, created.merchantId);
  const t = await createTransaction(ctx, m, {
    requestId: 'r1',
    relationId: 'order-1',
    paymentType: 'PAY',
    payAmount: '10.00',
    currency: 'USD',
    cardInfo: JSON.stringify({ cardNumber: '4242424242424242', month: '12', year: cardYear(TEST_NOW), cvv: '123' }),
  });
  return { ctx, m, secret: created.secret, t };
}

const entries = async () =>
  await rowsOf(app.ctx).all(
    'SELECT tracking_no AS no, tracking_channel AS ch, track_url AS url FROM tracking_entries ORDER BY tracking_no',
  );

describe('tracking upload', () => {
  it('accepts entries by orderId or relationId; data.sign matches an independent computation', async () => {
    const { ctx, m, secret, t } = await setup();
    const r = await uploadTracking(ctx, m, {
      merchantId: m.id,
      trackingList: [
        { orderId: t.transactionOrderId, trackingNo: 'T1', trackingChannel: 'UPS', trackUrl: 'https://ups.example/T1' },
        { relationId: 'order-1', trackingNo: 'T2', trackingChannel: 'DHL' },
      ],
    });
    expect(r).toMatchObject({ successCount: 2, failedCount: 0, failedOrders: [] });
    expect(r.sign).toBe(expectedSign(r, secret));
    expect(await entries()).toHaveLength(2); // split shipments accumulate
  });

  it('the same (order, trackingNo) again updates the entry', async () => {
    const { ctx, m, t } = await setup();
    await uploadTracking(ctx, m, {
      trackingList: [{ orderId: t.transactionOrderId, trackingNo: 'T1', trackingChannel: 'UPS' }],
    });
    await uploadTracking(ctx, m, {
      trackingList: [
        { orderId: t.transactionOrderId, trackingNo: 'T1', trackingChannel: 'FedEx', trackUrl: 'http://f.example/1' },
      ],
    });
    expect(await entries()).toEqual([{ no: 'T1', ch: 'FedEx', url: 'http://f.example/1' }]);
  });

  it('judges each entry alone; failedOrders lists orderId, else relationId, else #index', async () => {
    const { ctx, m, secret, t } = await setup();
    const other = await requireMerchant(ctx, (await testMerchant(ctx, { name: 'Other' })).merchantId);
    const foreign = await uploadTracking(ctx, other, {
      trackingList: [{ orderId: t.transactionOrderId, trackingNo: 'X', trackingChannel: 'UPS' }],
    });
    expect(foreign.failedOrders).toEqual([t.transactionOrderId]);
    const r = await uploadTracking(ctx, m, {
      trackingList: [
        { orderId: t.transactionOrderId, trackingNo: 'OK', trackingChannel: 'UPS' },
        { trackingNo: 'N', trackingChannel: 'UPS' },
        { relationId: 'unknown-rel', trackingNo: 'N', trackingChannel: 'UPS' },
        { orderId: t.transactionOrderId, trackingChannel: 'UPS' },
        { orderId: 'txn_x', relationId: 'r', trackingNo: 'x'.repeat(101), trackingChannel: 'UPS' },
        { relationId: 'order-1', trackingNo: 'N', trackingChannel: 'c'.repeat(101) },
        { relationId: 'order-1', trackingNo: 'N', trackingChannel: 'UPS', trackUrl: 'ftp://nope' },
        'not an object',
      ],
    });
    expect(r.successCount).toBe(1);
    expect(r.failedCount).toBe(7);
    expect(r.failedOrders).toEqual(['#1', 'unknown-rel', t.transactionOrderId, 'txn_x', 'order-1', 'order-1', '#7']);
    expect(r.sign).toBe(expectedSign(r, secret));
  });

  it('1 to 500 entries, else 1001', async () => {
    const { ctx, m, t } = await setup();
    await expect(uploadTracking(ctx, m, { trackingList: [] })).rejects.toThrow(
      expect.objectContaining({ code: '1001', field: 'trackingList' }),
    );
    await expect(uploadTracking(ctx, m, {})).rejects.toThrow(
      expect.objectContaining({ code: '1001', field: 'trackingList' }),
    );
    await expect(uploadTracking(ctx, m, { trackingList: 'x' })).rejects.toThrow(
      expect.objectContaining({ code: '1001' }),
    );
    const many = Array.from({ length: 501 }, (_, i) => ({
      orderId: t.transactionOrderId,
      trackingNo: `T${i}`,
      trackingChannel: 'UPS',
    }));
    await expect(uploadTracking(ctx, m, { trackingList: many })).rejects.toThrow(
      expect.objectContaining({ code: '1001' }),
    );
    expect((await uploadTracking(ctx, m, { trackingList: many.slice(0, 500) })).successCount).toBe(500);
  });
});
