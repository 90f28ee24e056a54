import { describe, expect, it } from 'vitest';
import { cardBrand, cardExpired, luhnValid, maskPan, parseCardInfo, validateCard } from '../../src/vault/card.js';

const NOW = Date.UTC(2026, 0, 15, 9, 0, 0); // 2026-01
const good = { cardNumber: '4242424242424242', month: '12', year: '2030', cvv: '123' };

describe('Luhn', () => {
  it.each([
    '4242424242424242',
    '5555555555554444',
    '378282246310005',
    '6011111111111117',
    '3530111333300000',
    '4000000000000002',
  ])('accepts %s', (pan) => expect(luhnValid(pan)).toBe(true));
  it.each(['4242424242424241', '1234567812345678', '5555555555554440'])('rejects %s', async (pan) =>
    expect(luhnValid(pan)).toBe(false),
  );
});

describe('brand from BIN', () => {
  it.each([
    ['4242424242424242', 'Visa'],
    ['5555555555554444', 'Mastercard'],
    ['2223003122003222', 'Mastercard'],
    ['2720990000000000', 'Mastercard'],
    ['378282246310005', 'Amex'],
    ['341111111111111', 'Amex'],
    ['6011111111111117', 'Discover'],
    ['6445644564456445', 'Discover'],
    ['6500000000000002', 'Discover'],
    ['3530111333300000', 'JCB'],
    ['6200000000000005', 'UnionPay'],
    ['30569309025904', 'Diners'],
    ['36227206271667', 'Diners'],
  ])('%s is %s', (pan, brand) => expect(cardBrand(pan)).toBe(brand));
});

describe('mask', () => {
  it('shows the first six and last four only', async () => {
    expect(maskPan('4242424242424242')).toBe('424242******4242');
  });
});

describe('validateCard → 1011', () => {
  const reject = (over: Record<string, string>, field: string) => {
    try {
      validateCard({ ...good, ...over }, NOW, 'UTC');
    } catch (e) {
      expect(e).toMatchObject({ code: '1011', field });
      expect(String((e as Error).message)).not.toMatch(/\d{12,}/);
      return;
    }
    throw new Error('accepted');
  };
  it('accepts a good card and reports display fields', async () => {
    expect(validateCard({ ...good, cardNumber: '4242 4242 4242 4242' }, NOW, 'UTC')).toMatchObject({
      number: '4242424242424242',
      brand: 'Visa',
      bin: '424242',
      last4: '4242',
      expMonth: 12,
      expYear: 2030,
    });
  });
  it('rejects a number failing Luhn', async () => reject({ cardNumber: '4242424242424241' }, 'cardNumber'));
  it('rejects letters and short numbers', async () => {
    reject({ cardNumber: '4242abcd42424242' }, 'cardNumber');
    reject({ cardNumber: '42424242' }, 'cardNumber');
  });
  it.each(['00', '13', '1', '012', 'ab'])('rejects month %s', async (month) => reject({ month }, 'month'));
  it.each(['30', '203', '20300', 'abcd'])('rejects year %s', async (year) => reject({ year }, 'year'));
  it.each(['12', '12345', 'abc', '1 3'])('rejects cvv %s', async (cvv) => reject({ cvv }, 'cvv'));
  it('rejects an expired card, accepts one expiring this month', async () => {
    reject({ month: '12', year: '2025' }, 'year');
    expect(validateCard({ ...good, month: '01', year: '2026' }, NOW, 'UTC').expYear).toBe(2026);
  });
  it('judges expiry in the configured zone', async () => {
    // 2026-01-01 03:00 UTC is still 2025-12-31 in New York: a 12/2025 card is valid there.
    const t = Date.UTC(2026, 0, 1, 3, 0, 0);
    expect(validateCard({ ...good, month: '12', year: '2025' }, t, 'America/New_York').expYear).toBe(2025);
    expect(() => validateCard({ ...good, month: '12', year: '2025' }, t, 'UTC')).toThrow();
    expect(cardExpired(12, 2025, t, 'UTC')).toBe(true);
  });
});

describe('parseCardInfo → 1001 on shape', () => {
  it.each([
    ['not json', 'cardInfo'],
    ['[]', 'cardInfo'],
    ['"x"', 'cardInfo'],
    [JSON.stringify({ month: '12', year: '2030', cvv: '123' }), 'cardInfo.cardNumber'],
    [JSON.stringify({ ...good, cvv: 123 }), 'cardInfo.cvv'],
    [JSON.stringify({ ...good, month: undefined }), 'cardInfo.month'],
  ])('%s → 1001 naming %s', (text, field) => {
    expect(() => parseCardInfo(text)).toThrow(expect.objectContaining({ code: '1001', field }));
  });
});
