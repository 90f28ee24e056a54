import { afterEach, describe, expect, it } from 'vitest';
import { takeDocumentNumber } from '../../src/services/document-numbers.js';
import { updateMerchant } from '../../src/services/merchants.js';
import { type TestApp, testApp, testMerchant } from '../helpers/ctx.js';

/**
 * Gap-free document numbers per merchant (SPEC §17), on the run's engine: taken in the unit of
 * work that issues the document, so concurrent issuers never share or skip a number and a
 * rolled-back unit gives its number back.
 */
let app: TestApp;
afterEach(async () => app?.close());

const take = (merchantId: string, kind: 'invoice' | 'credit-note' = 'invoice') =>
  app.ctx.store.transaction((tx) => takeDocumentNumber(tx, merchantId, kind));

describe('document numbers', () => {
  it('numbers invoices and credit notes in two sequences of their own per merchant', async () => {
    app = await testApp();
    const a = await testMerchant(app.ctx);
    const b = await testMerchant(app.ctx);
    expect(await take(a.merchantId)).toBe('INV-000001');
    expect(await take(a.merchantId)).toBe('INV-000002');
    expect(await take(a.merchantId, 'credit-note')).toBe('INV-CN-000001');
    expect(await take(b.merchantId)).toBe('INV-000001');
    expect(await take(a.merchantId)).toBe('INV-000003');
  });

  it('gives 50 concurrent issuers the numbers 1 to 50, each once', async () => {
    app = await testApp();
    const m = await testMerchant(app.ctx);
    const numbers = await Promise.all(Array.from({ length: 50 }, () => take(m.merchantId)));
    const expected = Array.from({ length: 50 }, (_, i) => `INV-${String(i + 1).padStart(6, '0')}`);
    expect([...numbers].sort()).toEqual(expected);
  });

  it('gives the number of a unit of work that rolled back to the next document', async () => {
    app = await testApp();
    const m = await testMerchant(app.ctx);
    expect(await take(m.merchantId)).toBe('INV-000001');
    const failed = app.ctx.store.transaction(async (tx) => {
      await takeDocumentNumber(tx, m.merchantId, 'invoice');
      throw new Error('the document could not be written');
    });
    await expect(failed).rejects.toThrow('could not be written');
    expect(await take(m.merchantId)).toBe('INV-000002');
  });

  it('continues from a moved sequence with the prefix in force, and the sequence goes on across a prefix change', async () => {
    app = await testApp();
    const m = await testMerchant(app.ctx);
    await updateMerchant(app.ctx, m.merchantId, { invoicePrefix: 'SHOP', invoiceNext: '1042' });
    expect(await take(m.merchantId)).toBe('SHOP-001042');
    await updateMerchant(app.ctx, m.merchantId, { invoicePrefix: 'SHOP-2027' });
    expect(await take(m.merchantId)).toBe('SHOP-2027-001043');
  });

  it('refuses to move a sequence back below a number already taken', async () => {
    app = await testApp();
    const m = await testMerchant(app.ctx);
    await take(m.merchantId);
    await take(m.merchantId);
    await expect(updateMerchant(app.ctx, m.merchantId, { invoiceNext: '2' })).rejects.toThrow(/at least 3/);
    expect(await take(m.merchantId)).toBe('INV-000003');
  });

  it('refuses an unknown merchant with 1007', async () => {
    app = await testApp();
    await expect(take('mer_nope')).rejects.toMatchObject({ code: '1007' });
  });
});
