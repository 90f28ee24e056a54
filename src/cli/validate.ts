import { isPaygateError } from '../domain/errors.js';
import { isCurrency, parseAmount } from '../domain/money.js';
import { luhnValid } from '../vault/luhn.js';

/**
 * Checks of one typed value, in plain words: undefined when fine, else what is wrong. Used at
 * the prompt (the value is refused as it is typed, before the next question) and for the same
 * values given as flags (refused before anything is asked). The services check everything again.
 */
export type Check = (value: string) => string | undefined;

const reasonOf = (e: unknown): string => {
  if (!isPaygateError(e)) throw e;
  return e.message.replace(/^[\w.]+: /, '');
};

export function amountCheck(currency: string, opts: { positive: boolean }): Check {
  return (value) => {
    try {
      // An unknown currency is the service's error to report (naming currency), not the amount's.
      const code = isCurrency(currency.toUpperCase()) ? currency.toUpperCase() : 'USD';
      parseAmount(value.trim(), code, { positive: opts.positive });
      return undefined;
    } catch (e) {
      return reasonOf(e);
    }
  };
}

export const textCheck =
  (max: number): Check =>
  (value) => {
    if (value.trim() === '') return 'cannot be empty';
    if (value.length > max) return `at most ${max} characters`;
    return undefined;
  };

export const cardNumberCheck: Check = (value) => {
  const digits = value.replace(/[\s-]/g, '');
  if (!/^\d{12,19}$/.test(digits)) return 'a card number is 12 to 19 digits (spaces and dashes are fine)';
  if (!luhnValid(digits)) return 'this card number has a typo: its check digit does not match';
  return undefined;
};

export const EXPIRY_RE = /^(\d{1,2})\s*\/\s*(\d{4})$/;

export const expiryCheck: Check = (value) => {
  const m = EXPIRY_RE.exec(value.trim());
  if (!m) return 'type the month and the four-digit year, e.g. 12/2030';
  const month = Number(m[1]);
  if (month < 1 || month > 12) return 'the month is 1 to 12';
  return undefined;
};

export const cvvCheck: Check = (value) => (/^\d{3,4}$/.test(value) ? undefined : 'the CVV is 3 or 4 digits');
