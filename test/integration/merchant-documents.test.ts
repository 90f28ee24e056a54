import { afterEach, describe, expect, it } from 'vitest';
import { showMerchant, updateMerchant } from '../../src/services/merchants.js';
import { type TestApp, testApp, testMerchant } from '../helpers/ctx.js';

/**
 * A merchant's identity on documents and its document settings (SPEC §17), on the run's engine:
 * `merchant update` sets them, `merchant show` shows them, a sequence only moves forward.
 */
let app: TestApp;
afterEach(async () => app?.close());

const code = async (p: Promise<unknown>): Promise<string | undefined> =>
  p.then(
    () => undefined,
    (e: { code?: string }) => e.code,
  );

describe('merchant document settings', () => {
  it('starts a new merchant with prefix INV, both sequences at 1 and customer emails on', async () => {
    app = await testApp();
    const m = await testMerchant(app.ctx);
    expect(await showMerchant(app.ctx, m.merchantId)).toMatchObject({
      invoicePrefix: 'INV',
      invoiceNext: 1,
      creditNoteNext: 1,
      customerEmails: 'on',
    });
  });

  it('sets and shows the identity, clears a field with ""', async () => {
    app = await testApp();
    const m = await testMerchant(app.ctx);
    const set = await updateMerchant(app.ctx, m.merchantId, {
      legalName: 'Acme Trading Ltd',
      address: '1 Main Street\nSpringfield',
      taxId: 'GB123456789',
      supportEmail: 'help@acme.test',
      emailFrom: 'billing@acme.test',
      invoicePrefix: 'ACME-26',
      customerEmails: 'off',
    });
    expect(set).toMatchObject({
      legalName: 'Acme Trading Ltd',
      address: '1 Main Street\nSpringfield',
      taxId: 'GB123456789',
      supportEmail: 'help@acme.test',
      emailFrom: 'billing@acme.test',
      invoicePrefix: 'ACME-26',
      customerEmails: 'off',
    });
    const cleared = await updateMerchant(app.ctx, m.merchantId, { taxId: '', customerEmails: 'on' });
    expect(cleared.taxId).toBeUndefined();
    expect(cleared.legalName).toBe('Acme Trading Ltd');
    expect(cleared.customerEmails).toBe('on');
  });

  it('moves the invoice and credit-note sequences forward, and to the number already next', async () => {
    app = await testApp();
    const m = await testMerchant(app.ctx);
    await updateMerchant(app.ctx, m.merchantId, { invoiceNext: '1001', creditNoteNext: '42' });
    const again = await updateMerchant(app.ctx, m.merchantId, { invoiceNext: '1001' });
    expect(again).toMatchObject({ invoiceNext: 1001, creditNoteNext: 42 });
  });

  it('never moves a sequence back, and then changes nothing else asked for with it', async () => {
    app = await testApp();
    const m = await testMerchant(app.ctx);
    await updateMerchant(app.ctx, m.merchantId, { invoiceNext: '500' });
    const refused = updateMerchant(app.ctx, m.merchantId, { invoiceNext: '499', legalName: 'Changed Ltd' });
    await expect(refused).rejects.toThrow(/invoiceNext: must be at least 500/);
    const after = await showMerchant(app.ctx, m.merchantId);
    expect(after.invoiceNext).toBe(500);
    expect(after.legalName).toBeUndefined();
  });

  it.each([
    [{ invoicePrefix: 'inv' }, 'invoicePrefix'],
    [{ invoicePrefix: 'ABCDEFGHIJKLM' }, 'invoicePrefix'],
    [{ invoiceNext: '0' }, 'invoiceNext'],
    [{ creditNoteNext: '1000000000' }, 'creditNoteNext'],
    [{ emailFrom: 'not-an-address' }, 'emailFrom'],
    [{ supportEmail: 'a@b' }, 'supportEmail'],
    [{ customerEmails: 'maybe' }, 'customerEmails'],
    [{ legalName: 'two\nlines' }, 'legalName'],
    [{ address: 'x'.repeat(501) }, 'address'],
  ])('refuses %j with 1001 naming %s, changing nothing', async (input, field) => {
    app = await testApp();
    const m = await testMerchant(app.ctx);
    const before = await showMerchant(app.ctx, m.merchantId);
    const refused = updateMerchant(app.ctx, m.merchantId, input);
    await expect(refused).rejects.toThrow(new RegExp(`^${field}`));
    expect(await code(updateMerchant(app.ctx, m.merchantId, input))).toBe('1001');
    expect(await showMerchant(app.ctx, m.merchantId)).toEqual(before);
  });
});
