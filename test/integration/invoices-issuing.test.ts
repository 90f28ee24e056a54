import { afterEach, describe, expect, it } from 'vitest';
import { issueInvoice, factsOf } from '../../src/services/documents/issue.js';
import { invoiceDetail, listInvoices, pageInvoiceViews } from '../../src/services/documents/queries.js';
import { requireMerchant, updateMerchant } from '../../src/services/merchants.js';
import { completeThreeDs } from '../../src/services/pages.js';
import { refundTransaction } from '../../src/services/refund.js';
import { createTransaction } from '../../src/services/transactions/index.js';
import type { TransactionRow } from '../../src/store/store.js';
import { cardYear } from '../helpers/cards.js';
import { CLOSED_NOTIFY_URL, type TestApp, TEST_NOW, testApp, testMerchant } from '../helpers/ctx.js';
import { rowsOf } from '../helpers/rows.js';

/**
 * Invoices and credit notes issued with what they document (SPEC §17), on the run's engine: in
 * the unit of work that records a successful charge or a settled refund, numbered without gap.
 */
let app: TestApp;
afterEach(async () => app?.close());

const card = (cardNumber = '4242424242424242') =>
  JSON.stringify({ cardNumber, month: '12', year: cardYear(TEST_NOW), cvv: '123' });
let seq = 0;

async function shop() {
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
  return { ctx, m, pay };
}

const callbackBody = async (txnId: string): Promise<Record<string, string>> => {
  const row = await rowsOf(app.ctx).get<{ payload: string }>(
    'SELECT payload FROM outbox_events WHERE transaction_id = ? ORDER BY created_at DESC, id DESC',
    txnId,
  );
  return JSON.parse(row.payload) as Record<string, string>;
};

const numbers = async (merchantId: string) =>
  (await pageInvoiceViews(app.ctx, merchantId, {}, { page: 1, limit: 100 })).items.map((r) => r.invoiceNumber).sort();

describe('issuing invoices', () => {
  it('issues a successful PAY its invoice, with the lines of its items, named in its callback', async () => {
    const { ctx, m, pay } = await shop();
    const items = JSON.stringify([
      { name: 'T-shirt', price: '3.00', num: '2' },
      { name: 'Mug', price: '4.00' },
    ]);
    const billingAddress = JSON.stringify({ firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com' });
    const t = await pay({ items, billingAddress });
    const [inv] = (await listInvoices(ctx, m.id, { transactionOrderId: t.transactionOrderId })).records;
    expect(inv).toMatchObject({
      invoiceNumber: 'INV-000001',
      total: '10.00',
      currency: 'USD',
      transactionOrderId: t.transactionOrderId,
      relationId: t.relationId,
      customer: { name: 'Ada Lovelace', email: 'ada@example.com' },
      paidWith: { brand: expect.stringMatching(/visa/i), last4: '4242' },
      lines: [
        { description: 'T-shirt', quantity: '2', unitPrice: '3.00', amount: '6.00' },
        { description: 'Mug', quantity: '1', unitPrice: '4.00', amount: '4.00' },
      ],
    });
    expect(inv?.url).toMatch(/\/invoice\/[0-9A-HJKMNP-TV-Z]{10}[A-Za-z0-9_-]{32}$/);
    expect(await callbackBody(t.transactionOrderId)).toMatchObject({
      invoiceNumber: 'INV-000001',
      invoiceUrl: inv?.url,
    });
  });

  it('issues a declined PAY no invoice and takes no number for it', async () => {
    const { m, pay } = await shop();
    const declined = await pay({ cardInfo: card('4000000000000002') });
    expect(declined.status).toBe('300000');
    expect(await callbackBody(declined.transactionOrderId)).not.toHaveProperty('invoiceNumber');
    await pay();
    expect(await numbers(m.id)).toEqual(['INV-000001']);
  });

  it('issues a PAY that waits on 3-D Secure no invoice until the challenge passes, then its own', async () => {
    const { ctx, m, pay } = await shop();
    const waiting = await pay({ cardInfo: card('4000000000003220') });
    expect(waiting.status).toBe('100040');
    expect(await numbers(m.id)).toEqual([]);
    await pay();
    const token = waiting.url?.split('/').pop() ?? '';
    expect((await completeThreeDs(ctx, token, true)).result).toBe('succeeded');
    expect(await numbers(m.id)).toEqual(['INV-000001', 'INV-000002']);
    expect(await callbackBody(waiting.transactionOrderId)).toMatchObject({ invoiceNumber: 'INV-000002' });
  });

  it('gives the number of a unit of work that rolled back to the next invoice', async () => {
    const { ctx, m, pay } = await shop();
    const declined = await pay({ cardInfo: card('4000000000000002') });
    const row = await ctx.store.getTransaction(declined.transactionOrderId);
    if (!row) throw new Error('no transaction');
    const failed = ctx.store.transaction(async (tx) => {
      await issueInvoice(ctx, tx, factsOf(row), undefined, ctx.clock.now());
      throw new Error('the charge could not be recorded');
    });
    await expect(failed).rejects.toThrow('could not be recorded');
    await pay();
    expect(await numbers(m.id)).toEqual(['INV-000001']);
  });

  it('numbers 50 concurrent PAYs 1 to 50, each once', async () => {
    const { m, pay } = await shop();
    await Promise.all(Array.from({ length: 50 }, () => pay()));
    expect(await numbers(m.id)).toEqual(Array.from({ length: 50 }, (_, i) => `INV-${String(i + 1).padStart(6, '0')}`));
  });

  // On PostgreSQL one merchant's paid PAYs queued behind each other commit in one transaction
  // (merchant-batches.ts): each must still get its own invoice, amount and number in its callback.
  it('gives each of 30 concurrent PAYs of different amounts its own invoice, named in its own callback', async () => {
    const { ctx, m, pay } = await shop();
    const paid = await Promise.all(Array.from({ length: 30 }, (_, i) => pay({ payAmount: `${i + 1}.00` })));
    const seen = new Set<string>();
    for (const [i, t] of paid.entries()) {
      expect(t.status).toBe('200000');
      const [inv] = (await listInvoices(ctx, m.id, { transactionOrderId: t.transactionOrderId })).records;
      expect(inv).toMatchObject({ total: `${i + 1}.00`, transactionOrderId: t.transactionOrderId });
      expect(await callbackBody(t.transactionOrderId)).toMatchObject({ invoiceNumber: inv?.invoiceNumber });
      seen.add(inv?.invoiceNumber ?? '');
    }
    expect([...seen].sort()).toEqual(Array.from({ length: 30 }, (_, i) => `INV-${String(i + 1).padStart(6, '0')}`));
  });

  // A renewal batch writes its records side by side in one unit of work (writeTogether): on SQLite
  // a clash here rolled every batch back and redid it one commit per renewal, a tenth of the rate.
  it('numbers invoices issued side by side in one unit of work consecutively, in that unit of work', async () => {
    const { ctx, m, pay } = await shop();
    const rows: TransactionRow[] = [];
    for (let i = 0; i < 3; i++) {
      const declined = await pay({ cardInfo: card('4000000000000002') });
      const row = await ctx.store.getTransaction(declined.transactionOrderId);
      if (!row) throw new Error('no transaction');
      rows.push(row);
    }
    const issued = await ctx.store.transaction((tx) =>
      Promise.all(rows.map((row) => issueInvoice(ctx, tx, factsOf(row), undefined, ctx.clock.now()))),
    );
    expect(issued.map((i) => i?.invoiceNumber).sort()).toEqual(['INV-000001', 'INV-000002', 'INV-000003']);
    expect(await numbers(m.id)).toEqual(['INV-000001', 'INV-000002', 'INV-000003']);
  });

  it('shows the merchant as it was when the invoice was issued', async () => {
    const { ctx, m, pay } = await shop();
    await updateMerchant(ctx, m.id, { legalName: 'Acme Trading Ltd', taxId: 'GB123' });
    await pay();
    await updateMerchant(ctx, m.id, { legalName: 'Other Name Ltd', invoicePrefix: 'ACME' });
    await pay();
    const a = await invoiceDetail(ctx, m.id, { invoiceNumber: 'INV-000001' });
    const b = await invoiceDetail(ctx, m.id, { invoiceNumber: 'ACME-000002' });
    expect(a.seller).toMatchObject({ legalName: 'Acme Trading Ltd', taxId: 'GB123' });
    expect(b.seller).toMatchObject({ legalName: 'Other Name Ltd' });
  });
});

describe('issuing credit notes', () => {
  it('issues a refund its credit note for the invoice, named in the refund callback', async () => {
    const { ctx, m, pay } = await shop();
    const t = await pay();
    await refundTransaction(ctx, m, { transactionOrderId: t.transactionOrderId, refundAmount: '4.00' });
    await refundTransaction(ctx, m, { transactionOrderId: t.transactionOrderId, refundAmount: '1.50' });
    const d = await invoiceDetail(ctx, m.id, { invoiceNumber: 'INV-000001' });
    expect(d.creditNotes).toMatchObject([
      { creditNoteNumber: 'INV-CN-000001', invoiceNumber: 'INV-000001', amount: '4.00', currency: 'USD' },
      { creditNoteNumber: 'INV-CN-000002', invoiceNumber: 'INV-000001', amount: '1.50', currency: 'USD' },
    ]);
    expect(await callbackBody(t.transactionOrderId)).toMatchObject({ creditNoteNumber: 'INV-CN-000002' });
  });
});

describe('reading invoices', () => {
  it("answers another merchant's invoice as not found (1007)", async () => {
    const { ctx, pay } = await shop();
    await pay();
    const other = await testMerchant(ctx);
    await expect(invoiceDetail(ctx, other.merchantId, { invoiceNumber: 'INV-000001' })).rejects.toMatchObject({
      code: '1007',
    });
  });

  it('refuses a list naming two filters, or none, with 1001', async () => {
    const { ctx, m } = await shop();
    await expect(listInvoices(ctx, m.id, { userId: 'u', subscriptionCode: 'x' })).rejects.toMatchObject({
      code: '1001',
    });
    await expect(listInvoices(ctx, m.id, {})).rejects.toMatchObject({ code: '1001' });
  });
});
