import { describe, expect, it } from 'vitest';
import {
  buyerBlock,
  layoutCreditNote,
  layoutInvoice,
  paymentLabel,
  periodLabel,
  sellerBlock,
} from '../../src/domain/document-layout.js';
import { invoiceLines } from '../../src/domain/documents.js';
import { formatMoney } from '../../src/domain/money.js';
import { sampleCreditNote, sampleInvoice } from '../helpers/documents.js';

describe('money on documents: the currency’s decimals, grouped, with its code', () => {
  it.each([
    [0, 'USD', '0.00 USD'],
    [5, 'USD', '0.05 USD'],
    [123456, 'USD', '1,234.56 USD'],
    [-500, 'EUR', '-5.00 EUR'],
    [100000000, 'EUR', '1,000,000.00 EUR'],
    [1000, 'JPY', '1,000 JPY'],
    [-1, 'JPY', '-1 JPY'],
    [1500, 'KWD', '1.500 KWD'],
    [1234567, 'BHD', '1,234.567 BHD'],
    [999999999999, 'USD', '9,999,999,999.99 USD'],
  ])('%d minor units of %s read %s', (minor, currency, text) => {
    expect(formatMoney(minor, currency)).toBe(text);
  });
});

describe('document layout', () => {
  it.each([
    [{ brand: 'Visa', last4: '4242' }, 'VISA ••4242'],
    [{ brand: 'Mastercard', last4: '0004' }, 'MASTERCARD ••0004'],
    [{ brand: 'Amex', last4: '4111111111111111' }, 'AMEX ••1111'],
  ])('shows a card as brand and last four only: %j → %s', (card, label) => {
    expect(paymentLabel(card)).toBe(label);
  });

  it.each([
    ['UTC', Date.UTC(2026, 0, 31), Date.UTC(2026, 1, 28), '2026-01-31 – 2026-02-28'],
    // 23:30 UTC is already the next day in Berlin.
    ['Europe/Berlin', Date.UTC(2026, 2, 31, 23, 30), Date.UTC(2026, 3, 30, 23, 30), '2026-04-01 – 2026-05-01'],
    ['America/New_York', Date.UTC(2026, 0, 1, 3), Date.UTC(2026, 1, 1, 3), '2025-12-31 – 2026-01-31'],
  ])('prints a service period as dates in the shop’s zone (%s)', (zone, from, to, text) => {
    expect(periodLabel(from, to, zone)).toBe(text);
  });

  it('prints the seller’s identity as far as it is set', () => {
    expect(sellerBlock({ name: 'Acme' })).toEqual({ title: 'From', lines: ['Acme'] });
    expect(
      sellerBlock({
        name: 'Acme',
        legalName: 'Acme Ltd',
        address: 'a\r\n\n b ',
        taxId: 'GB1',
        supportEmail: 's@a.test',
      }),
    ).toEqual({ title: 'From', lines: ['Acme Ltd', 'Trading as Acme', 'a', 'b', 'Tax ID: GB1', 's@a.test'] });
  });

  it('leaves out the customer block when nothing is known of the customer', () => {
    expect(buyerBlock({ addressLines: [] })).toBeUndefined();
    expect(buyerBlock({ addressLines: [], email: 'x@y.test' })).toEqual({ title: 'Billed to', lines: ['x@y.test'] });
  });

  it('lays an invoice out: number, issue time, order, reference, card, lines and total', () => {
    const layout = layoutInvoice(sampleInvoice(), 'Europe/Berlin');
    expect(layout.heading).toBe('Invoice');
    expect(layout.number).toBe('INV-000042');
    expect(layout.meta).toEqual([
      { label: 'Invoice number', value: 'INV-000042' },
      { label: 'Issued', value: '2026-01-05 11:00:00' },
      { label: 'Order', value: 'txn_01HXYZ' },
      { label: 'Reference', value: 'order-77' },
      { label: 'Paid with', value: 'VISA ••4242' },
    ]);
    expect(layout.table.rows).toEqual([
      ['T-shirt', '2', '19.99 USD', '39.98 USD'],
      ['Mug', '1', '1,234.50 USD', '1,234.50 USD'],
      ['Sticker', '1', '', ''],
      ['Other charges', '', '', '25.52 USD'],
    ]);
    expect(layout.totals).toEqual([{ label: 'Total paid', value: '1,300.00 USD' }]);
    expect(layout.buyer?.lines).toEqual(['Łukasz Żółw', '2 Side Road', '10115 Berlin', 'DE', 'lukasz@example.com']);
  });

  it('lays a plan change out with its period and the credit as a negative amount', () => {
    const from = Date.UTC(2026, 0, 15);
    const to = Date.UTC(2026, 1, 15);
    const inv = sampleInvoice({
      subscriptionCode: 'SUB123',
      lines: invoiceLines(
        {
          kind: 'plan',
          planName: 'Business',
          from,
          to,
          price: 9900,
          reductions: [{ description: 'Unused time on Pro', amount: 1450 }],
        },
        8450,
        'USD',
      ),
      total: 8450,
    });
    const layout = layoutInvoice(inv, 'UTC');
    expect(layout.table.rows).toEqual([
      ['Business (2026-01-15 – 2026-02-15)', '', '', '99.00 USD'],
      ['Unused time on Pro', '', '', '-14.50 USD'],
    ]);
    expect(layout.meta).toContainEqual({ label: 'Subscription', value: 'SUB123' });
    expect(layout.totals).toEqual([{ label: 'Total paid', value: '84.50 USD' }]);
  });

  it('lays a credit note out with its invoice’s number, the refunded amount and the time', () => {
    const layout = layoutCreditNote(sampleCreditNote(), 'UTC');
    expect(layout.heading).toBe('Credit note');
    expect(layout.meta).toEqual([
      { label: 'Credit note number', value: 'INV-CN-000007' },
      { label: 'Issued', value: '2026-01-09 08:30:00' },
      { label: 'For invoice', value: 'INV-000042' },
      { label: 'Order', value: 'txn_01HXYZ' },
      { label: 'Reference', value: 'order-77' },
    ]);
    expect(layout.table.rows).toEqual([['Refund of invoice INV-000042', '', '', '-39.98 USD']]);
    expect(layout.totals).toEqual([{ label: 'Total credited', value: '39.98 USD' }]);
  });

  it('omits the payment row when the charge was not by card', () => {
    const { payment: _none, ...inv } = sampleInvoice();
    expect(layoutInvoice(inv, 'UTC').meta.map((m) => m.label)).not.toContain('Paid with');
  });

  it('says on a sandbox charge’s invoice and credit note that no real money moved, and only there', () => {
    const note = 'Sandbox — test mode: no real money moved.';
    expect(layoutInvoice({ ...sampleInvoice(), sandbox: true }, 'UTC').notes[0]).toBe(note);
    expect(layoutCreditNote({ ...sampleCreditNote(), sandbox: true }, 'UTC').notes[0]).toBe(note);
    expect(layoutInvoice(sampleInvoice(), 'UTC').notes).not.toContain(note);
    expect(layoutCreditNote({ ...sampleCreditNote(), sandbox: false }, 'UTC').notes).not.toContain(note);
  });
});
