import { z } from 'zod';
import { invalidParam } from '../../domain/errors.js';
import { isHttpUrl, optionalRedirectUrl, optionalString, optionalText, optionalUrl, parseInput, requiredString } from '../../domain/fields.js';
import { isCurrency, parseAmount } from '../../domain/money.js';
import { parseCardInfo, validateCard, type ValidCard } from '../../vault/card.js';

/**
 * Validation of a transaction request (SERVICE.md table, SPEC §3/§5). Everything is checked
 * before anything is written; the first problem is a 1001 naming the field (1011 for card rules).
 */
export const PAYMENT_TYPES = ['PAY', 'CHECKOUT', 'SUBSCRIPTION'] as const;
export type PaymentType = (typeof PAYMENT_TYPES)[number];

const schema = z.object({
  requestId: requiredString(100),
  relationId: requiredString(200),
  paymentType: optionalString(200),
  planId: optionalString(200),
  userId: optionalString(200),
  payAmount: optionalString(32),
  currency: optionalString(200),
  clientIp: optionalString(100),
  returnUrl: optionalRedirectUrl,
  failedUrl: optionalRedirectUrl,
  cancelUrl: optionalRedirectUrl,
  notifyUrl: optionalUrl,
  billingAddress: optionalText,
  shippingAddress: optionalText,
  cardInfo: optionalText,
  items: optionalText,
});

export interface TransactionInput {
  requestId: string;
  relationId: string;
  paymentType: PaymentType;
  planId?: string;
  userId?: string;
  /** Minor units; for SUBSCRIPTION the plan's price replaces it later. */
  amount: number;
  currency: string;
  clientIp?: string;
  returnUrl?: string;
  failedUrl?: string;
  cancelUrl?: string;
  notifyUrl?: string;
  billingAddress?: string;
  shippingAddress?: string;
  items?: string;
  /** Absent for CHECKOUT (the card is entered on the page). */
  card?: ValidCard;
}

const ADDRESS_FIELDS = [
  'firstName', 'lastName', 'country', 'state', 'province', 'city', 'street', 'address', 'postalCode', 'phone', 'email',
  'countryName', 'provinceName', 'number', 'areaCode', 'birthDate', 'identityNumber',
] as const;

function parseJson(field: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw invalidParam(field, 'must be a valid JSON string');
  }
}

/** Address objects: every value a string (null allowed as "absent"); known fields checked for format. */
function checkAddress(field: string, text: string): void {
  const obj = parseJson(field, text);
  if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) throw invalidParam(field, 'must be a JSON object of an address');
  for (const [k, v] of Object.entries(obj)) {
    if (v !== null && typeof v !== 'string') throw invalidParam(`${field}.${k}`, 'must be a string');
    if (typeof v === 'string' && v.length > 500) throw invalidParam(`${field}.${k}`, 'must be at most 500 characters');
  }
  const o = obj as Partial<Record<(typeof ADDRESS_FIELDS)[number], string | null>>;
  if (o.country && !/^[A-Za-z]{2,3}$/.test(o.country)) throw invalidParam(`${field}.country`, 'must be an ISO country code');
  if (o.birthDate && !/^\d{4}\/\d{2}\/\d{2}$/.test(o.birthDate)) throw invalidParam(`${field}.birthDate`, 'must be yyyy/MM/dd');
  if (o.email && !/^[^\s@]+@[^\s@]+$/.test(o.email)) throw invalidParam(`${field}.email`, 'must be an email address');
}

/** Emoji, CJK ideographs, kana, hangul, control characters — SERVICE.md forbids them in item names. */
const FORBIDDEN_NAME = /[\p{Extended_Pictographic}\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Cc}\u{FE0F}\u{200D}]/u;
const ITEM_FIELDS = ['name', 'price', 'num', 'currency', 'sku', 'url', 'category'] as const;

export interface Item {
  name: string;
  price?: string;
  num?: string;
}

function checkItems(text: string): Item[] {
  const arr = parseJson('items', text);
  if (!Array.isArray(arr)) throw invalidParam('items', 'must be a JSON array of item objects');
  if (arr.length > 500) throw invalidParam('items', 'must have at most 500 items');
  return arr.map((item: unknown, i) => {
    const at = `items[${i}]`;
    if (item === null || typeof item !== 'object' || Array.isArray(item)) throw invalidParam(at, 'must be an item object');
    const o = item as Record<string, unknown>;
    for (const k of ITEM_FIELDS) {
      const v = o[k];
      if (v !== undefined && v !== null && typeof v !== 'string') throw invalidParam(`${at}.${k}`, 'must be a string');
      if (typeof v === 'string' && v.length > 500) throw invalidParam(`${at}.${k}`, 'must be at most 500 characters');
    }
    const name = o.name;
    if (typeof name !== 'string' || name.trim() === '') throw invalidParam(`${at}.name`, 'is required');
    if (FORBIDDEN_NAME.test(name)) throw invalidParam(`${at}.name`, 'must not contain emoji, CJK or control characters');
    const price = typeof o.price === 'string' && o.price !== '' ? o.price : undefined;
    const num = typeof o.num === 'string' && o.num !== '' ? o.num : undefined;
    if (price !== undefined && !/^(0|[1-9]\d{0,9})(\.\d{1,2})?$/.test(price)) throw invalidParam(`${at}.price`, 'must be an amount such as 9.99: digits with at most two decimals, no sign, no exponent');
    if (num !== undefined && !/^[1-9]\d{0,8}$/.test(num)) throw invalidParam(`${at}.num`, 'must be a whole number ≥ 1');
    if (typeof o.currency === 'string' && o.currency !== '' && !isCurrency(o.currency)) throw invalidParam(`${at}.currency`, 'must be an ISO 4217 code');
    if (typeof o.url === 'string' && o.url !== '' && !isHttpUrl(o.url)) throw invalidParam(`${at}.url`, 'must be an http or https URL');
    return { name, ...(price ? { price } : {}), ...(num ? { num } : {}) };
  });
}

/** Items as stored JSON → display list (for the checkout page). */
export function itemsOf(text: string | null): Item[] | undefined {
  if (!text) return undefined;
  try {
    return checkItems(text);
  } catch {
    return undefined;
  }
}

export function parseTransactionInput(
  raw: unknown,
  now: number,
  zone: string,
  defaultPaymentType?: PaymentType,
): TransactionInput {
  const d = parseInput(schema, raw);
  const paymentType = d.paymentType ?? defaultPaymentType;
  if (paymentType === undefined) throw invalidParam('paymentType', 'is required');
  if (!(PAYMENT_TYPES as readonly string[]).includes(paymentType)) throw invalidParam('paymentType', 'must be PAY, CHECKOUT or SUBSCRIPTION');
  const pt = paymentType as PaymentType;
  const sub = pt === 'SUBSCRIPTION';
  if (sub && !d.planId) throw invalidParam('planId', 'is required for SUBSCRIPTION');
  if (sub && !d.userId) throw invalidParam('userId', 'is required for SUBSCRIPTION');
  if (!sub && d.payAmount === undefined) throw invalidParam('payAmount', 'is required');
  if (!sub && d.currency === undefined) throw invalidParam('currency', 'is required');
  if (d.currency !== undefined && !isCurrency(d.currency)) throw invalidParam('currency', `${d.currency} is not an ISO 4217 currency`);
  // A subscription's amount comes from the plan; a payAmount sent anyway must still be well-formed.
  const currency = d.currency ?? 'USD';
  const amount = d.payAmount !== undefined ? parseAmount(d.payAmount, currency, { field: 'payAmount', positive: !sub }) : 0;
  if (d.billingAddress) checkAddress('billingAddress', d.billingAddress);
  if (d.shippingAddress) checkAddress('shippingAddress', d.shippingAddress);
  if (d.items) checkItems(d.items);
  let card: ValidCard | undefined;
  if (pt !== 'CHECKOUT') {
    if (!d.cardInfo) throw invalidParam('cardInfo', `is required for ${pt}`);
    card = validateCard(parseCardInfo(d.cardInfo), now, zone);
  }
  const out: TransactionInput = { requestId: d.requestId, relationId: d.relationId, paymentType: pt, amount, currency };
  const optional = ['planId', 'userId', 'clientIp', 'returnUrl', 'failedUrl', 'cancelUrl', 'notifyUrl', 'billingAddress', 'shippingAddress', 'items'] as const;
  for (const k of optional) if (d[k] !== undefined) out[k] = d[k];
  if (card) out.card = card;
  return out;
}
