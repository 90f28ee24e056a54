import { type Invoice, invoiceLines, type CreditNote } from '../../src/domain/documents.js';

/** A fully identified merchant and customer: every block of a document has something in it. */
export function sampleInvoice(overrides: Partial<Invoice> = {}): Invoice {
  const total = 130_000;
  return {
    number: 'INV-000042',
    issuedAt: Date.UTC(2026, 0, 5, 10, 0, 0),
    currency: 'USD',
    merchant: {
      name: 'Acme Shop',
      legalName: 'Acme Trading Ltd',
      address: '1 Main Street\nSpringfield 12345\nUS',
      taxId: 'US-123456789',
      supportEmail: 'help@acme.test',
    },
    customer: { name: 'Łukasz Żółw', addressLines: ['2 Side Road', '10115 Berlin', 'DE'], email: 'lukasz@example.com' },
    lines: invoiceLines(
      {
        kind: 'items',
        items: [{ name: 'T-shirt', price: '19.99', num: '2' }, { name: 'Mug', price: '1234.50' }, { name: 'Sticker' }],
      },
      total,
      'USD',
    ),
    total,
    payment: { brand: 'Visa', last4: '4242' },
    transactionOrderId: 'txn_01HXYZ',
    relationId: 'order-77',
    ...overrides,
  };
}

export function sampleCreditNote(overrides: Partial<CreditNote> = {}): CreditNote {
  const inv = sampleInvoice();
  return {
    number: 'INV-CN-000007',
    invoiceNumber: inv.number,
    issuedAt: Date.UTC(2026, 0, 9, 8, 30, 0),
    currency: 'USD',
    amount: 3_998,
    merchant: inv.merchant,
    customer: inv.customer,
    transactionOrderId: inv.transactionOrderId,
    relationId: inv.relationId,
    ...overrides,
  };
}
