import { describe, expect, it } from 'vitest';
import { amountNumber, currencyExponent, formatAmount, isCurrency, parseAmount } from '../../src/domain/money.js';

describe('money: (12,2) strings ⇄ integer minor units', () => {
  it.each([
    ['0', 'USD', 0],
    ['0.1', 'USD', 10],
    ['0.01', 'USD', 1],
    ['9.99', 'USD', 999],
    ['10', 'USD', 1000],
    ['9999999999.99', 'USD', 999999999999],
    ['100', 'JPY', 100],
    ['100.00', 'JPY', 100],
    ['1.5', 'KWD', 1500],
  ])('parses %s %s as %d minor units', (text, currency, minor) => {
    expect(parseAmount(text, currency)).toBe(minor);
  });

  it('adds 0.1 and 0.2 exactly as integers', async () => {
    expect(parseAmount('0.1', 'USD') + parseAmount('0.2', 'USD')).toBe(parseAmount('0.3', 'USD'));
    expect(formatAmount(parseAmount('0.1', 'USD') + parseAmount('0.2', 'USD'), 'USD')).toBe('0.30');
  });

  it.each(['1.', '-1', '1e3', '.5', '01', '1.234', '12345678901', ' 1', '1,00', '', 'NaN', '0x10', '+1'])(
    'refuses %j with 1001 naming the field',
    (text) => {
      expect(() => parseAmount(text, 'USD', { field: 'payAmount' })).toThrowError(/payAmount/);
      try {
        parseAmount(text, 'USD', { field: 'payAmount' });
      } catch (e) {
        expect((e as { code: string }).code).toBe('1001');
      }
    },
  );

  it('refuses non-strings', async () => {
    expect(() => parseAmount(10 as unknown as string, 'USD', { field: 'price' })).toThrowError(/price/);
  });

  it('refuses a fraction on a zero-decimal currency but accepts zeros', async () => {
    expect(() => parseAmount('100.50', 'JPY')).toThrowError(/JPY/);
    expect(parseAmount('100.0', 'JPY')).toBe(100);
  });

  it('refuses zero where a positive amount is required', async () => {
    expect(() => parseAmount('0.00', 'USD', { field: 'refundAmount', positive: true })).toThrowError(
      /greater than zero/,
    );
  });

  it.each([
    [999, 'USD', '9.99'],
    [5, 'USD', '0.05'],
    [0, 'USD', '0.00'],
    [999999999999, 'USD', '9999999999.99'],
    [100, 'JPY', '100'],
    [1500, 'KWD', '1.500'],
  ])('formats %d %s as %s', (minor, currency, text) => {
    expect(formatAmount(minor, currency)).toBe(text);
  });

  it('gives JSON numbers for plan and billing responses', async () => {
    expect(amountNumber(999, 'USD')).toBe(9.99);
    expect(amountNumber(1000, 'USD')).toBe(10);
  });

  it('knows ISO 4217 codes and their exponents', async () => {
    expect(isCurrency('USD')).toBe(true);
    expect(isCurrency('EUR')).toBe(true);
    expect(isCurrency('XYZ')).toBe(false);
    expect(isCurrency('usd')).toBe(false);
    expect(currencyExponent('JPY')).toBe(0);
    expect(currencyExponent('KRW')).toBe(0);
    expect(currencyExponent('USD')).toBe(2);
  });
});
