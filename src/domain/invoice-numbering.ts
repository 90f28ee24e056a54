import { invalidParam } from './errors.js';

/**
 * Document numbers (SPEC §17): `PREFIX-000001` for invoices, `PREFIX-CN-000001` for credit
 * notes, per merchant and gap-free. This module only names and checks numbers; taking the next
 * one happens in the unit of work that issues the document, so none is skipped or used twice.
 */

export const DEFAULT_INVOICE_PREFIX = 'INV';

/** Six digits as the shops' own systems print them; a sequence past 999999 simply grows a digit. */
const DIGITS = 6;

/**
 * Nine digits: a sequence is a 32-bit integer column on both engines, and a bigger "next" is a
 * typo, not a migration — no shop has issued a billion invoices.
 */
export const MAX_SEQUENCE = 999_999_999;

const PREFIX_RE = /^[A-Z0-9-]{1,12}$/;

export type DocumentKind = 'invoice' | 'credit-note';

/**
 * A merchant's `invoicePrefix`: 1–12 of A-Z, 0-9 and `-`. Lower case is refused, not folded: the number is printed as given.
 * Not ending in `-CN`: invoice `X-CN-000005` would be the number credit note 5 of prefix `X` has
 * (or had, before the prefix changed). The digits hold no `-`, so this is the only way an
 * invoice and a credit note can share a number.
 */
export function parseInvoicePrefix(value: unknown, field = 'invoicePrefix'): string {
  if (typeof value !== 'string' || !PREFIX_RE.test(value))
    throw invalidParam(field, 'must be 1 to 12 characters of A-Z, 0-9 and "-", such as "INV" or "SHOP-2026"');
  if (value.endsWith('-CN'))
    throw invalidParam(
      field,
      'must not end in "-CN": credit notes are numbered PREFIX-CN-000001, so its invoices would take their numbers',
    );
  return value;
}

/** `INV` + 42 → `INV-000042`; a credit note's → `INV-CN-000042`. */
export function documentNumber(kind: DocumentKind, prefix: string, sequence: number): string {
  if (!Number.isSafeInteger(sequence) || sequence < 1) throw new RangeError(`document sequence ${sequence} is not ≥ 1`);
  const digits = String(sequence).padStart(DIGITS, '0');
  return kind === 'invoice' ? `${prefix}-${digits}` : `${prefix}-CN-${digits}`;
}

/** A requested next number (`--invoice-next N`): a whole number from 1 up to MAX_SEQUENCE. */
export function parseSequence(value: unknown, field: string): number {
  const text = typeof value === 'number' ? String(value) : value;
  if (typeof text !== 'string' || !/^[1-9]\d{0,8}$/.test(text))
    throw invalidParam(field, `must be a whole number from 1 to ${MAX_SEQUENCE}`);
  const n = Number(text);
  if (n > MAX_SEQUENCE) throw invalidParam(field, `must be a whole number from 1 to ${MAX_SEQUENCE}`);
  return n;
}

/**
 * Moving a sequence (a shop continuing its own numbering): `requested` is the number the next
 * document gets, `next` the one it would get now. A sequence only moves forward: going back
 * could hand out a number already issued. Asking for the current next number changes nothing.
 */
export function checkSequenceMove(next: number, requested: number, field: string): void {
  if (requested < next)
    throw invalidParam(
      field,
      `must be at least ${next}, the next number now: a sequence only moves forward, so no number is used twice`,
    );
}
