import { describe, expect, it } from 'vitest';
import {
  ADJUSTMENT,
  customerOf,
  type InvoiceLine,
  invoiceLines,
  type LineSource,
  OTHER_CHARGES,
  sumLines,
} from '../../src/domain/documents.js';

const JAN = Date.UTC(2026, 0, 1);
const FEB = Date.UTC(2026, 1, 1);

describe('invoice lines (SPEC §17): items with quantity × price, or the plan and its period', () => {
  const cases: Array<[string, LineSource, number, string, InvoiceLine[]]> = [
    [
      'items whose prices add up to the charge',
      {
        kind: 'items',
        items: [
          { name: 'T-shirt', price: '19.99', num: '2' },
          { name: 'Mug', price: '5' },
        ],
      },
      4498,
      'USD',
      [
        { description: 'T-shirt', quantity: 2, unitAmount: 1999, amount: 3998 },
        { description: 'Mug', quantity: 1, unitAmount: 500, amount: 500 },
      ],
    ],
    [
      'items without prices: listed, the charge in one "Other charges" line',
      { kind: 'items', items: [{ name: 'Gift box', num: '3' }] },
      2500,
      'EUR',
      [
        { description: 'Gift box', quantity: 3 },
        { description: OTHER_CHARGES, amount: 2500 },
      ],
    ],
    [
      'items priced above the charge: the difference as a negative adjustment',
      { kind: 'items', items: [{ name: 'Course', price: '100.00' }] },
      9000,
      'USD',
      [
        { description: 'Course', quantity: 1, unitAmount: 10000, amount: 10000 },
        { description: ADJUSTMENT, amount: -1000 },
      ],
    ],
    [
      'a zero-decimal currency',
      { kind: 'items', items: [{ name: 'Ramen', price: '1200', num: '2' }] },
      2400,
      'JPY',
      [{ description: 'Ramen', quantity: 2, unitAmount: 1200, amount: 2400 }],
    ],
    [
      'an item price the currency cannot hold is listed without one',
      { kind: 'items', items: [{ name: 'Tea', price: '9.99' }] },
      1000,
      'JPY',
      [
        { description: 'Tea', quantity: 1 },
        { description: OTHER_CHARGES, amount: 1000 },
      ],
    ],
    [
      'a three-decimal currency',
      { kind: 'items', items: [{ name: 'Dates', price: '1.5', num: '2' }] },
      3000,
      'KWD',
      [{ description: 'Dates', quantity: 2, unitAmount: 1500, amount: 3000 }],
    ],
    [
      'a subscription charge: the plan with its service period',
      { kind: 'plan', planName: 'Pro monthly', from: JAN, to: FEB, price: 2900, reductions: [] },
      2900,
      'USD',
      [{ description: 'Pro monthly', period: { from: JAN, to: FEB }, amount: 2900 }],
    ],
    [
      "a plan change: the new plan, the old plan's unused credit as a negative line",
      {
        kind: 'plan',
        planName: 'Business',
        from: JAN,
        to: FEB,
        price: 9900,
        reductions: [{ description: 'Unused time on Pro monthly', amount: 1450 }],
      },
      8450,
      'USD',
      [
        { description: 'Business', period: { from: JAN, to: FEB }, amount: 9900 },
        { description: 'Unused time on Pro monthly', amount: -1450 },
      ],
    ],
    [
      'a discount and a credit: two negative lines',
      {
        kind: 'plan',
        planName: 'Pro',
        from: JAN,
        to: FEB,
        price: 5000,
        reductions: [
          { description: 'Credit', amount: 1000 },
          { description: 'Coupon WELCOME (20%)', amount: 1000 },
        ],
      },
      3000,
      'USD',
      [
        { description: 'Pro', period: { from: JAN, to: FEB }, amount: 5000 },
        { description: 'Credit', amount: -1000 },
        { description: 'Coupon WELCOME (20%)', amount: -1000 },
      ],
    ],
    [
      'a plain charge without items',
      { kind: 'amount', description: 'Payment' },
      1234,
      'USD',
      [{ description: 'Payment', amount: 1234 }],
    ],
  ];

  it.each(cases)('%s', (_name, source, total, currency, expected) => {
    const lines = invoiceLines(source, total, currency);
    expect(lines).toEqual(expected);
  });

  it.each(cases)('lines add up to the total charged: %s', (_name, source, total, currency) => {
    expect(sumLines(invoiceLines(source, total, currency))).toBe(total);
  });

  it('leaves a count × price beyond safe integers to the difference line instead of a float', () => {
    const lines = invoiceLines(
      { kind: 'items', items: [{ name: 'Bulk', price: '9999999999.99', num: '999999999' }] },
      100,
      'USD',
    );
    expect(lines).toEqual([
      { description: 'Bulk', quantity: 999999999 },
      { description: OTHER_CHARGES, amount: 100 },
    ]);
  });
});

describe('the customer of a document', () => {
  it('takes name, address and email from the billingAddress', () => {
    const c = customerOf({
      firstName: 'Ada',
      lastName: 'Lovelace',
      street: '12 St James Square',
      postalCode: 'SW1Y 4JH',
      city: 'London',
      country: 'GB',
      email: 'ada@example.com',
      phone: '+44 20 0000',
    });
    expect(c).toEqual({
      name: 'Ada Lovelace',
      addressLines: ['12 St James Square', 'SW1Y 4JH London', 'GB'],
      email: 'ada@example.com',
    });
  });

  it("falls back to the subscription's email when the address has none", () => {
    expect(customerOf({ firstName: 'Ada' }, 'sub@example.com')).toEqual({
      name: 'Ada',
      addressLines: [],
      email: 'sub@example.com',
    });
  });

  it('is empty without an address or email, blank fields ignored', () => {
    expect(customerOf(undefined)).toEqual({ addressLines: [] });
    expect(customerOf({ firstName: '  ', city: '' })).toEqual({ addressLines: [] });
  });
});
