import { invalidParam } from './errors.js';

/**
 * Money is an integer count of the currency's minor units, never a float. Requests carry
 * `(12,2)` strings; this module is the only place that turns them into integers and back.
 */

/** SPEC §3: at most 10 integer digits, at most 2 decimals, no sign, no exponent, no leading zeros. */
export const AMOUNT_RE = /^(0|[1-9]\d{0,9})(\.(\d{1,2}))?$/;

/** ICU knows ISO 4217; these are the exponents card networks use where ICU differs. */
const EXPONENT_OVERRIDES: Record<string, number> = {
  ISK: 0,
  UGX: 0,
};

let exponents: Map<string, number> | undefined;

function currencyTable(): Map<string, number> {
  if (!exponents) {
    exponents = new Map();
    for (const code of Intl.supportedValuesOf('currency')) {
      if (!/^[A-Z]{3}$/.test(code)) continue;
      const digits =
        EXPONENT_OVERRIDES[code] ??
        new Intl.NumberFormat('en', { style: 'currency', currency: code }).resolvedOptions().maximumFractionDigits ??
        2;
      exponents.set(code, digits);
    }
  }
  return exponents;
}

export function isCurrency(code: string): boolean {
  return currencyTable().has(code);
}

/** Decimal places of a currency's minor unit (USD 2, JPY 0, KWD 3). */
export function currencyExponent(code: string): number {
  const e = currencyTable().get(code);
  if (e === undefined) throw invalidParam('currency', `unknown currency ${code}`);
  return e;
}

export interface ParseAmountOptions {
  field?: string;
  /** payAmount and refundAmount must be > 0 (SPEC §3). */
  positive?: boolean;
}

/**
 * The checks of an amount that need no currency (its form, and > 0 when asked): a request whose
 * currency comes from a stored row runs them before looking the row up, so a malformed amount
 * is 1001 whether or not the row exists (SPEC §3: parameters before the operation's rules).
 */
export function checkAmountForm(text: unknown, opts: ParseAmountOptions = {}): RegExpExecArray {
  const field = opts.field ?? 'amount';
  if (typeof text !== 'string') throw invalidParam(field, 'must be a decimal string such as "9.99"');
  const m = AMOUNT_RE.exec(text);
  if (!m)
    throw invalidParam(
      field,
      'must be a decimal string of at most 10 digits and 2 decimals, such as "9.99" (no sign, exponent or leading zero)',
    );
  if (opts.positive && !/[1-9]/.test(text)) throw invalidParam(field, 'must be greater than zero');
  return m;
}

/** Parse a `(12,2)` request string into minor units of `currency`. Throws 1001 naming the field. */
export function parseAmount(text: unknown, currency: string, opts: ParseAmountOptions = {}): number {
  const field = opts.field ?? 'amount';
  const m = checkAmountForm(text, opts);
  const exp = currencyExponent(currency);
  const whole = m[1] ?? '0';
  const frac = m[3] ?? '';
  if (exp === 0 && /[1-9]/.test(frac)) {
    throw invalidParam(field, `${currency} has no minor unit; send a whole amount`);
  }
  const minor = Number(whole) * 10 ** exp + Number((frac + '000').slice(0, exp) || '0');
  if (opts.positive && minor <= 0) throw invalidParam(field, 'must be greater than zero');
  return minor;
}

/** Minor units → the currency's decimal string (`"10.00"`, `"100"`, `"1.500"`). */
export function formatAmount(minor: number, currency: string): string {
  const exp = currencyExponent(currency);
  const sign = minor < 0 ? '-' : '';
  const abs = Math.abs(minor);
  if (exp === 0) return sign + String(abs);
  const s = String(abs).padStart(exp + 1, '0');
  return `${sign}${s.slice(0, -exp)}.${s.slice(-exp)}`;
}

/** Minor units → a JSON number for plan, subscription and billing responses (SPEC §3). */
export function amountNumber(minor: number, currency: string): number {
  return Number(formatAmount(minor, currency));
}

/**
 * Minor units → the amount as a reader sees it on a document or email: the currency's decimals,
 * thousands grouped with commas, the ISO code after it (`1,234.56 USD`, `-5.00 EUR`, `1,000 JPY`).
 * The code, not a symbol: `$` alone names a dozen currencies, and every font has the letters.
 */
export function formatMoney(minor: number, currency: string): string {
  const plain = formatAmount(minor, currency);
  const sign = plain.startsWith('-') ? '-' : '';
  const [whole = '', frac] = plain.slice(sign.length).split('.');
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${sign}${grouped}${frac === undefined ? '' : `.${frac}`} ${currency}`;
}
