import { z } from 'zod';
import { invalidParam, PaygateError, RESULT_CODES } from '../domain/errors.js';
import { parseInput } from '../domain/fields.js';
import { hasLoneSurrogate } from '../domain/text.js';
import { newId } from '../domain/ids.js';
import { wallTime } from '../domain/time.js';
import type { Vault } from './crypto.js';
import type { ChannelCard } from '../channel/channel.js';
import { luhnValid } from './luhn.js';

export { luhnValid };

/**
 * Card checks and the vault (SPEC §10). A card number (PAN) lives only in memory for the charge
 * at hand, or encrypted in `cards` for a subscription; displays use `maskPan`. The CVV is never
 * stored. Shape problems of the cardInfo JSON are 1001; card rules (Luhn, expiry, format) 1011.
 */
export interface CardInput {
  holderName?: string;
  cardNumber: string;
  month: string;
  year: string;
  cvv: string;
}

/** A card that passed every check: digits only, numeric expiry. */
export interface ValidCard {
  number: string;
  expMonth: number;
  expYear: number;
  cvv: string;
  holderName?: string;
  brand: string;
  bin: string;
  last4: string;
}

const HOLDER_NAME_MAX = 200;

export const cardShape = z.object({
  holderName: z
    .string({ error: 'must be a string' })
    .max(HOLDER_NAME_MAX, `must be at most ${HOLDER_NAME_MAX} characters`)
    .optional()
    .nullable(),
  cardNumber: z
    .string({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be a string') })
    .min(1, 'is required')
    .max(40, 'must be at most 40 characters'),
  month: z
    .string({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be a string') })
    .min(1, 'is required')
    .max(4, 'must be at most 4 characters'),
  year: z
    .string({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be a string') })
    .min(1, 'is required')
    .max(8, 'must be at most 8 characters'),
  cvv: z
    .string({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be a string') })
    .min(1, 'is required')
    .max(8, 'must be at most 8 characters'),
});

/** Parse the cardInfo JSON string (or an already-parsed object) into its fields; 1001 on a bad shape. */
export function parseCardInfo(value: unknown, field = 'cardInfo'): CardInput {
  let obj: unknown = value;
  if (typeof value === 'string') {
    try {
      obj = JSON.parse(value);
    } catch {
      throw invalidParam(field, 'must be a JSON string of a card object');
    }
  }
  if (obj === null || typeof obj !== 'object' || Array.isArray(obj))
    throw invalidParam(field, 'must be a JSON object of a card');
  // parseInput: the same 1001 naming `cardInfo.<field>`, and the text checks every field gets.
  const { holderName, ...rest } = parseInput(cardShape, obj, field);
  return holderName ? { ...rest, holderName } : rest;
}

const rejected = (field: string, reason: string): PaygateError =>
  new PaygateError(RESULT_CODES.CARD_REJECTED, `card rejected: ${field} ${reason}`, field);

const inRange = (prefix: string, len: number, lo: number, hi: number): boolean => {
  const n = Number(prefix.slice(0, len));
  return prefix.length >= len && n >= lo && n <= hi;
};

/** Card brand from the BIN (issuer identification number ranges of the networks). */
export function cardBrand(pan: string): string {
  if (/^3[47]/.test(pan)) return 'Amex';
  if (/^4/.test(pan)) return 'Visa';
  if (inRange(pan, 2, 51, 55) || inRange(pan, 4, 2221, 2720)) return 'Mastercard';
  if (/^6011/.test(pan) || inRange(pan, 3, 644, 649) || /^65/.test(pan) || inRange(pan, 6, 622126, 622925))
    return 'Discover';
  if (/^62/.test(pan)) return 'UnionPay';
  if (inRange(pan, 4, 3528, 3589)) return 'JCB';
  if (inRange(pan, 3, 300, 305) || /^3[689]/.test(pan)) return 'Diners';
  if (/^(50|5[6-9]|6[0-9])/.test(pan)) return 'Maestro';
  return 'Unknown';
}

/** `424242******4242`: the only way a card number is ever displayed. */
export function maskPan(pan: string): string {
  return `${pan.slice(0, 6)}******${pan.slice(-4)}`;
}

/** Mask from stored display fields (bin + last4). */
export function maskStored(bin: string | null, last4: string | null): string | undefined {
  return bin && last4 ? `${bin}******${last4}` : undefined;
}

/**
 * SPEC §5 card rules → 1011. `now` and `zone` decide expiry: a card is valid through the last
 * day of its expiry month in the configured zone.
 */
export function validateCard(card: CardInput, now: number, zone: string): ValidCard {
  // The hosted pages hand their form here without parseInput: the same text rule (SPEC §3).
  if (card.holderName !== undefined && hasLoneSurrogate(card.holderName))
    throw invalidParam('holderName', 'is not valid Unicode text: it holds a lone surrogate');
  if (card.holderName !== undefined && card.holderName.length > HOLDER_NAME_MAX)
    throw invalidParam('holderName', `must be at most ${HOLDER_NAME_MAX} characters`);
  const number = card.cardNumber.replace(/[\s-]/g, '');
  if (!/^\d{12,19}$/.test(number)) throw rejected('cardNumber', 'must be 12 to 19 digits');
  if (!luhnValid(number)) throw rejected('cardNumber', 'fails the Luhn check');
  if (!/^(0[1-9]|1[0-2])$/.test(card.month)) throw rejected('month', 'must be two digits 01 to 12');
  if (!/^\d{4}$/.test(card.year)) throw rejected('year', 'must be four digits');
  if (!/^\d{3,4}$/.test(card.cvv)) throw rejected('cvv', 'must be 3 or 4 digits');
  const expMonth = Number(card.month);
  const expYear = Number(card.year);
  const today = wallTime(now, zone);
  if (expYear * 12 + expMonth < today.year * 12 + today.month)
    throw rejected('year', 'and month: the card has expired');
  if (expYear > today.year + 50) throw rejected('year', 'is too far in the future');
  return {
    number,
    expMonth,
    expYear,
    cvv: card.cvv,
    ...(card.holderName ? { holderName: card.holderName } : {}),
    brand: cardBrand(number),
    bin: number.slice(0, 6),
    last4: number.slice(-4),
  };
}

/** Is a stored expiry past at `now` (renewals check this before charging, SPEC §6)? */
export function cardExpired(expMonth: number, expYear: number, now: number, zone: string): boolean {
  const today = wallTime(now, zone);
  return expYear * 12 + expMonth < today.year * 12 + today.month;
}

export function channelCard(card: ValidCard, withCvv: boolean): ChannelCard {
  return {
    number: card.number,
    expMonth: card.expMonth,
    expYear: card.expYear,
    ...(withCvv ? { cvv: card.cvv } : {}),
    ...(card.holderName ? { holderName: card.holderName } : {}),
  };
}

/** A sealed card as the vault makes it: a row of the cards table (the compiler holds the two together where it is inserted). */
export interface SealedCard {
  id: string;
  merchantId: string;
  panEnc: string | null;
  channel: 'sandbox' | 'stripe';
  stripeCustomerId: null;
  stripePaymentMethodId: null;
  bin: string;
  last4: string;
  brand: string;
  expMonth: number;
  expYear: number;
  holderName: string | null;
  createdAt: number;
}

/**
 * Seal a card for a subscription's vault: the PAN encrypted (AES-256-GCM), display fields beside
 * it, the CVV dropped (for a Stripe merchant no number at all). The caller inserts the row in the unit of work that creates the subscription.
 */
export function sealCard(
  vault: Vault,
  merchantId: string,
  card: ValidCard,
  now: number,
  channel: 'sandbox' | 'stripe' = 'sandbox',
): SealedCard {
  return {
    id: newId('crd', now),
    merchantId,
    // Stripe keeps the number: paygate stores only its ids (set after the first charge) and display fields.
    panEnc: channel === 'stripe' ? null : vault.encrypt(card.number),
    channel,
    stripeCustomerId: null,
    stripePaymentMethodId: null,
    bin: card.bin,
    last4: card.last4,
    brand: card.brand,
    expMonth: card.expMonth,
    expYear: card.expYear,
    holderName: card.holderName ?? null,
    createdAt: now,
  };
}
