import { afterEach, describe, expect, it } from 'vitest';
import { creditNoteByToken, invoiceByToken, invoiceDetail } from '../../src/services/documents/queries.js';
import { requireMerchant } from '../../src/services/merchants.js';
import { refundTransaction } from '../../src/services/refund.js';
import { createTransaction } from '../../src/services/transactions/index.js';
import { cardYear } from '../helpers/cards.js';
import { CLOSED_NOTIFY_URL, type TestApp, TEST_NOW, testApp, testMerchant } from '../helpers/ctx.js';
import { rowsOf } from '../helpers/rows.js';

/** A credit note's own link (SPEC §17): issued with it, or given on first showing to one issued before links existed. */
let app: TestApp;
afterEach(async () => app?.close());

async function refunded(): Promise<{ merchantId: string }> {
  app = await testApp();
  const ctx = app.ctx;
  const m = await requireMerchant(ctx, (await testMerchant(ctx, { notifyUrl: CLOSED_NOTIFY_URL })).merchantId);
  const t = await createTransaction(ctx, m, {
    requestId: 'p1',
    relationId: 'o1',
    paymentType: 'PAY',
    payAmount: '10.00',
    currency: 'USD',
    cardInfo: JSON.stringify({ cardNumber: '4242424242424242', month: '12', year: cardYear(TEST_NOW), cvv: '123' }),
  });
  await refundTransaction(ctx, m, { transactionOrderId: t.transactionOrderId, refundAmount: '4.00' });
  return { merchantId: m.id };
}

const tokenOf = (url: string | undefined): string => String(url).split('/').at(-1) ?? '';

describe('credit note links', () => {
  it('issues every credit note with a token of its own, which opens it', async () => {
    const { merchantId } = await refunded();
    const row = await rowsOf(app.ctx).get<{ token: string | null }>('SELECT token FROM credit_notes');
    expect(row.token).toMatch(/^[0-9A-HJKMNP-TV-Z]{10}[A-Za-z0-9_-]{32}$/);
    const [note] = (await invoiceDetail(app.ctx, merchantId, { invoiceNumber: 'INV-000001' })).creditNotes ?? [];
    expect(tokenOf(note?.url)).toBe(row.token);
    expect((await creditNoteByToken(app.ctx, row.token ?? '')).number).toBe('INV-CN-000001');
  });

  it('gives a credit note issued before links existed its token the first time it is shown, and keeps it', async () => {
    const { merchantId } = await refunded();
    await rowsOf(app.ctx).run('UPDATE credit_notes SET token = NULL');
    const first = (await invoiceDetail(app.ctx, merchantId, { invoiceNumber: 'INV-000001' })).creditNotes?.[0];
    const stored = await rowsOf(app.ctx).get<{ token: string | null }>('SELECT token FROM credit_notes');
    expect(stored.token).toMatch(/^[0-9A-HJKMNP-TV-Z]{10}[A-Za-z0-9_-]{32}$/);
    expect(tokenOf(first?.url)).toBe(stored.token);
    const again = (await invoiceDetail(app.ctx, merchantId, { invoiceNumber: 'INV-000001' })).creditNotes?.[0];
    expect(again?.url).toBe(first?.url);
    expect((await creditNoteByToken(app.ctx, stored.token ?? '')).number).toBe('INV-CN-000001');
  });

  it('opens a document by a token of the older form (32 random characters), as issued before tokens began with their time', async () => {
    await refunded();
    const older = 'Zq3v9Xk2LmN8pQr4StU6vWx0YzA1bC5d';
    await rowsOf(app.ctx).run(`UPDATE invoices SET token = '${older}'`);
    await rowsOf(app.ctx).run(`UPDATE credit_notes SET token = '${older}'`);
    expect((await invoiceByToken(app.ctx, older)).number).toBe('INV-000001');
    expect((await creditNoteByToken(app.ctx, older)).number).toBe('INV-CN-000001');
  });
});
