import { isEmailAddress } from '../../domain/email-address.js';
import { z } from 'zod';
import { invalidParam, PaygateError, RESULT_CODES } from '../../domain/errors.js';
import {
  amountString,
  blankAbsent,
  isHttpUrl,
  jsonDocument,
  optionalAmount,
  optionalRedirectUrl,
  optionalString,
  optionalUrl,
  parseInput,
  requiredString,
  wireForm,
} from '../../domain/fields.js';
import { AMOUNT_RE, isCurrency, parseAmount } from '../../domain/money.js';
import { parseCardInfo, validateCard, type ValidCard } from '../../vault/card.js';

/**
 * Validation of a transaction request (SERVICE.md table, SPEC §3/§5). Everything is checked
 * before anything is written; the first problem is a 1001 naming the field (1011 for card rules).
 */
export const PAYMENT_TYPES = ['PAY', 'CHECKOUT', 'SUBSCRIPTION'] as const;
export type PaymentType = (typeof PAYMENT_TYPES)[number];

/** Where the OpenAPI document finds the shapes of the JSON documents (http/openapi.ts registers them). */
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

const addressDoc = () => jsonDocument('object of an address', ref('Address'));
const optionalCard = () => jsonDocument('object of a card', ref('CardInfo'));
const requiredCard = () => jsonDocument('object of a card', ref('CardInfo'), true);

/** Every field of a transaction request; each payment type then says which of them it needs. */
const fields = {
  requestId: requiredString(100),
  relationId: requiredString(200),
  planId: optionalString(200),
  userId: optionalString(200),
  payAmount: optionalAmount,
  currency: optionalString(200),
  clientIp: optionalString(100),
  returnUrl: optionalRedirectUrl,
  failedUrl: optionalRedirectUrl,
  cancelUrl: optionalRedirectUrl,
  notifyUrl: optionalUrl,
  billingAddress: addressDoc(),
  shippingAddress: addressDoc(),
  cardInfo: optionalCard(),
  items: jsonDocument('array of item objects', { type: 'array', maxItems: 500, items: ref('Item') }),
};

const payAmount = amountString('is required and must be a decimal string such as "10.00"');
const currency = requiredString(200);

/**
 * The request of each payment type. These schemas validate the request AND are what the OpenAPI
 * document publishes (one source): PAY and CHECKOUT need an amount and currency, PAY and
 * SUBSCRIPTION a card, SUBSCRIPTION a plan and a user (its amount comes from the plan).
 */
export const TRANSACTION_REQUESTS = {
  PAY: z.object({ ...fields, paymentType: z.literal('PAY'), payAmount, currency, cardInfo: requiredCard() }),
  CHECKOUT: z.object({ ...fields, paymentType: z.literal('CHECKOUT'), payAmount, currency }),
  SUBSCRIPTION: z.object({
    ...fields,
    paymentType: z.literal('SUBSCRIPTION'),
    planId: requiredString(200),
    userId: requiredString(200),
    cardInfo: requiredCard(),
    /** A coupon of the merchant taken with the subscription (SPEC §19). */
    couponCode: optionalString(50),
  }),
} as const;

/** POST /subscription/create: a SUBSCRIPTION whose paymentType may be left out. */
export const SUBSCRIBE_REQUEST = TRANSACTION_REQUESTS.SUBSCRIPTION.extend({
  paymentType: wireForm(
    blankAbsent(z.literal('SUBSCRIPTION', { error: 'must be SUBSCRIPTION (or left out) on /subscription/create' })),
    {
      type: 'string',
      enum: ['SUBSCRIPTION'],
    },
  ),
});

const addressText = z
  .string({ error: 'must be a string' })
  .max(500, 'must be at most 500 characters')
  .nullable()
  .optional();
const blankOr = (re: RegExp, rule: string) => addressText.refine((v) => !v || re.test(v), rule);

/** An address document: every value a string (null allowed as "absent"); known fields checked for format. */
export const addressShape = z
  .object({
    firstName: addressText,
    lastName: addressText,
    country: blankOr(/^[A-Za-z]{2,3}$/, 'must be an ISO country code'),
    state: addressText,
    province: addressText,
    city: addressText,
    street: addressText,
    address: addressText,
    postalCode: addressText,
    phone: addressText,
    // The rule customer email uses: an address accepted here is one paygate can write to.
    email: addressText.refine(
      (v) => !v || isEmailAddress(v.trim()),
      'must be an email address such as ada@example.com',
    ),
    countryName: addressText,
    provinceName: addressText,
    number: addressText,
    areaCode: addressText,
    birthDate: blankOr(/^\d{4}\/\d{2}\/\d{2}$/, 'must be yyyy/MM/dd'),
    identityNumber: addressText,
  })
  .catchall(addressText);

/** Emoji, CJK ideographs, kana, hangul, control characters — SERVICE.md forbids them in item names. */
const FORBIDDEN_NAME =
  // biome-ignore lint/suspicious/noMisleadingCharacterClass: U+FE0F and U+200D are forbidden on their own, not as part of a pair
  /[\p{Extended_Pictographic}\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Cc}\u{FE0F}\u{200D}]/u;
const itemText = z.string({ error: 'must be a string' }).max(500, 'must be at most 500 characters');
const optionalItemText = itemText
  .nullable()
  .optional()
  .transform((v) => (v === '' || v === null ? undefined : v));

/** One entry of `items`: a name, and optionally a (12,2) price, a count, and descriptive fields. */
export const itemShape = z.object({
  name: itemText
    .refine((v) => v.trim() !== '', 'is required')
    .refine((v) => !FORBIDDEN_NAME.test(v), 'must not contain emoji, CJK or control characters'),
  price: wireForm(
    optionalItemText.refine(
      (v) => v === undefined || AMOUNT_RE.test(v),
      'must be a decimal string such as "9.99" (at most 10 digits and 2 decimals)',
    ),
    { type: 'string', pattern: AMOUNT_RE.source },
  ),
  num: wireForm(
    optionalItemText.refine(
      (v) => v === undefined || /^[1-9]\d{0,8}$/.test(v),
      'must be a whole number of at least 1, as a string',
    ),
    { type: 'string', pattern: '^[1-9]\\d{0,8}$' },
  ),
  currency: wireForm(
    optionalItemText.refine((v) => v === undefined || isCurrency(v), 'must be an ISO 4217 currency code such as "USD"'),
    { type: 'string', pattern: '^[A-Z]{3}$' },
  ),
  sku: optionalItemText,
  url: wireForm(
    optionalItemText.refine((v) => v === undefined || isHttpUrl(v), 'must be an http or https URL'),
    { type: 'string', pattern: '^[Hh][Tt][Tt][Pp][Ss]?://', maxLength: 500 },
  ),
  category: optionalItemText,
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
  /** SUBSCRIPTION: the coupon it starts with. */
  couponCode?: string;
}

function parseJson(field: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw invalidParam(field, 'must be valid JSON (a JSON string of the document, or the document itself)');
  }
}

function checkAddress(field: string, text: string): void {
  const obj = parseJson(field, text);
  if (obj === null || typeof obj !== 'object' || Array.isArray(obj))
    throw invalidParam(field, 'must be a JSON object of an address');
  parseInput(addressShape, obj, field);
}

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
    if (item === null || typeof item !== 'object' || Array.isArray(item))
      throw invalidParam(at, 'must be an item object');
    const { name, price, num } = parseInput(itemShape, item, at);
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
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
    throw new PaygateError(RESULT_CODES.MALFORMED, 'request body must be a JSON object');
  // POST /subscription/create (the one caller with a default) takes only SUBSCRIPTION, by its own schema.
  const subscribeOnly = defaultPaymentType === 'SUBSCRIPTION';
  const given = (raw as Record<string, unknown>).paymentType;
  if (!subscribeOnly && given !== undefined && given !== null && typeof given !== 'string')
    throw invalidParam('paymentType', 'must be a string: PAY, CHECKOUT or SUBSCRIPTION');
  const paymentType = subscribeOnly ? 'SUBSCRIPTION' : typeof given === 'string' ? given : undefined;
  if (!paymentType) throw invalidParam('paymentType', 'is required: PAY, CHECKOUT or SUBSCRIPTION');
  if (!(PAYMENT_TYPES as readonly string[]).includes(paymentType))
    throw invalidParam('paymentType', 'must be PAY, CHECKOUT or SUBSCRIPTION');
  const pt = paymentType as PaymentType;
  const d = parseInput(subscribeOnly ? SUBSCRIBE_REQUEST : TRANSACTION_REQUESTS[pt], raw);
  const sub = pt === 'SUBSCRIPTION';
  if (d.currency !== undefined && !isCurrency(d.currency))
    throw invalidParam('currency', `${d.currency} is not an ISO 4217 currency`);
  // A subscription's amount comes from the plan; a payAmount sent anyway must still be well-formed.
  const currency = d.currency ?? 'USD';
  const amount =
    d.payAmount !== undefined ? parseAmount(d.payAmount, currency, { field: 'payAmount', positive: !sub }) : 0;
  if (d.billingAddress) checkAddress('billingAddress', d.billingAddress);
  if (d.shippingAddress) checkAddress('shippingAddress', d.shippingAddress);
  if (d.items) checkItems(d.items);
  let card: ValidCard | undefined;
  if (pt !== 'CHECKOUT' && d.cardInfo !== undefined) card = validateCard(parseCardInfo(d.cardInfo), now, zone);
  const out: TransactionInput = { requestId: d.requestId, relationId: d.relationId, paymentType: pt, amount, currency };
  const optional = [
    'planId',
    'userId',
    'clientIp',
    'returnUrl',
    'failedUrl',
    'cancelUrl',
    'notifyUrl',
    'billingAddress',
    'shippingAddress',
    'items',
  ] as const;
  for (const k of optional) if (d[k] !== undefined) out[k] = d[k];
  if (card) out.card = card;
  if ('couponCode' in d && d.couponCode !== undefined) out.couponCode = d.couponCode;
  return out;
}
