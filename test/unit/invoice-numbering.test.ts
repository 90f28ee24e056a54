import { describe, expect, it } from 'vitest';
import {
  checkSequenceMove,
  DEFAULT_INVOICE_PREFIX,
  documentNumber,
  MAX_SEQUENCE,
  parseInvoicePrefix,
  parseSequence,
} from '../../src/domain/invoice-numbering.js';

const code = (f: () => unknown): string | undefined => {
  try {
    f();
    return undefined;
  } catch (e) {
    return (e as { code?: string }).code;
  }
};

describe('invoice numbering (SPEC §17)', () => {
  it.each([
    ['invoice', 'INV', 1, 'INV-000001'],
    ['invoice', 'INV', 42, 'INV-000042'],
    ['invoice', 'SHOP-2026', 999_999, 'SHOP-2026-999999'],
    ['invoice', 'A', 1_000_000, 'A-1000000'],
    ['credit-note', 'INV', 1, 'INV-CN-000001'],
    ['credit-note', 'X9', 123_456, 'X9-CN-123456'],
  ] as const)('numbers a %s of prefix %s, sequence %d, as %s', (kind, prefix, seq, expected) => {
    expect(documentNumber(kind, prefix, seq)).toBe(expected);
  });

  it('defaults the prefix to INV', () => {
    expect(DEFAULT_INVOICE_PREFIX).toBe('INV');
  });

  it.each(['INV', 'A', 'ABCDEFGHIJKL', 'SHOP-2026', '0', '---'])('accepts the prefix %j', (prefix) => {
    expect(parseInvoicePrefix(prefix)).toBe(prefix);
  });

  it.each(['', 'ABCDEFGHIJKLM', 'inv', 'IN V', 'INV_1', 'ÄB', 'INV/1', 7, null])(
    'refuses the prefix %j with 1001 naming the field',
    (prefix) => {
      expect(code(() => parseInvoicePrefix(prefix, 'invoicePrefix'))).toBe('1001');
      expect(() => parseInvoicePrefix(prefix, 'invoicePrefix')).toThrowError(/invoicePrefix/);
    },
  );

  it.each(['INV-CN', 'A-CN', '-CN', 'SHOP-2026-CN'])(
    'refuses the prefix %j, which would number invoices as credit notes, with 1001 naming the field',
    (prefix) => {
      expect(code(() => parseInvoicePrefix(prefix, 'invoicePrefix'))).toBe('1001');
      expect(() => parseInvoicePrefix(prefix, 'invoicePrefix')).toThrowError(/invoicePrefix.*must not end in "-CN"/);
    },
  );

  it.each(['CN', 'INV-CN1', 'CN-INV', 'INVCN', 'INV-C'])(
    'accepts the prefix %j, which no credit note has',
    (prefix) => {
      expect(parseInvoicePrefix(prefix)).toBe(prefix);
    },
  );

  it('no invoice of an accepted prefix is numbered like a credit note (PREFIX-CN-digits)', () => {
    for (const p of ['INV', 'CN', 'INV-CN1', 'A-', 'CN-CN1', 'CN-'])
      for (const n of [5, 999_999, 1_000_000])
        expect(documentNumber('invoice', parseInvoicePrefix(p), n)).not.toMatch(/^[A-Z0-9-]+-CN-\d{6,}$/);
  });

  it.each([
    ['1', 1],
    ['1000', 1000],
    [250, 250],
    [String(MAX_SEQUENCE), MAX_SEQUENCE],
  ] as const)('accepts %j as a next number', (text, n) => {
    expect(parseSequence(text, 'invoiceNext')).toBe(n);
  });

  it.each(['0', '-1', '01', '1.5', '1e3', '', 'ten', String(MAX_SEQUENCE + 1), 0, 2.5])(
    'refuses %j as a next number with 1001',
    (text) => {
      expect(code(() => parseSequence(text, 'invoiceNext'))).toBe('1001');
    },
  );

  it.each([
    [1, 1],
    [1, 5000],
    [43, 43],
    [43, 44],
  ])('moves a sequence whose next number is %d to %d', (next, requested) => {
    expect(() => checkSequenceMove(next, requested, 'invoiceNext')).not.toThrow();
  });

  it.each([
    [2, 1],
    [43, 42],
    [5000, 1],
  ])('never moves a sequence whose next number is %d back to %d', (next, requested) => {
    expect(code(() => checkSequenceMove(next, requested, 'invoiceNext'))).toBe('1001');
    expect(() => checkSequenceMove(next, requested, 'invoiceNext')).toThrowError(/only moves forward/);
  });

  it.each([0, -1, 1.5, Number.NaN])('refuses to number sequence %d', (seq) => {
    expect(() => documentNumber('invoice', 'INV', seq)).toThrow(RangeError);
  });
});
