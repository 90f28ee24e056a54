import { z } from 'zod';
import { invalidParam } from '../domain/errors.js';
import { DEFAULT_INVOICE_PREFIX, parseInvoicePrefix, parseSequence } from '../domain/invoice-numbering.js';
import type { MerchantRow, Tx } from '../store/store.js';

/**
 * A merchant's identity on invoices and customer email, and its document settings (SPEC §17):
 * `merchant update --legal-name … --invoice-prefix … --invoice-next N …`, shown by `merchant show`.
 */

type DocumentFields =
  | 'legalName'
  | 'address'
  | 'taxId'
  | 'supportEmail'
  | 'emailFrom'
  | 'invoicePrefix'
  | 'invoiceNext'
  | 'creditNoteNext'
  | 'customerEmails';

/** What a new merchant starts with: no identity beyond its name, `INV`, both sequences at 1, emails on. */
export const NEW_MERCHANT_DOCUMENTS: Pick<MerchantRow, DocumentFields> = {
  legalName: null,
  address: null,
  taxId: null,
  supportEmail: null,
  emailFrom: null,
  invoicePrefix: DEFAULT_INVOICE_PREFIX,
  invoiceNext: 1,
  creditNoteNext: 1,
  customerEmails: 'on',
};

/** "" clears an optional text; anything else is kept as given, trimmed. */
const clearable = (max: number) =>
  z
    .string({ error: 'must be a string' })
    .transform((v) => v.trim())
    .refine((v) => v.length <= max, `must be at most ${max} characters`)
    .optional();

const email = clearable(254).refine(
  (v) => v === undefined || v === '' || /^[^\s@<>",;]+@[^\s@<>",;]+\.[^\s@<>",;]+$/.test(v),
  'must be an email address such as billing@example.com ("" clears it)',
);

export const identityFields = {
  legalName: clearable(200).refine((v) => v === undefined || !/[\r\n]/.test(v), 'must be one line'),
  /** Several lines, as printed under the name. */
  address: clearable(500),
  taxId: clearable(50).refine((v) => v === undefined || !/[\r\n]/.test(v), 'must be one line'),
  supportEmail: email,
  emailFrom: email,
  invoicePrefix: z.unknown().optional(),
  invoiceNext: z.unknown().optional(),
  creditNoteNext: z.unknown().optional(),
  customerEmails: z
    .union([z.boolean(), z.enum(['on', 'off'])], { error: 'must be on or off' })
    .transform((v): 'on' | 'off' => (v === true || v === 'on' ? 'on' : 'off'))
    .optional(),
};

type IdentityInput = { [K in keyof typeof identityFields]?: z.output<(typeof identityFields)[K]> };

export interface SequenceMoves {
  invoiceNext?: number;
  creditNoteNext?: number;
}

/** The plain columns an update sets, and the sequence moves it asks for (checked in the unit of work). */
export function identityPatch(data: IdentityInput): { patch: Partial<MerchantRow>; moves: SequenceMoves } {
  const patch: Partial<MerchantRow> = {};
  const text = (v: string | undefined): string | null | undefined => (v === undefined ? undefined : v || null);
  const set = <K extends 'legalName' | 'address' | 'taxId' | 'supportEmail' | 'emailFrom'>(key: K): void => {
    const v = text(data[key]);
    if (v !== undefined) patch[key] = v;
  };
  for (const key of ['legalName', 'address', 'taxId', 'supportEmail', 'emailFrom'] as const) set(key);
  if (data.invoicePrefix !== undefined) patch.invoicePrefix = parseInvoicePrefix(data.invoicePrefix);
  if (data.customerEmails !== undefined) patch.customerEmails = data.customerEmails;
  const moves: SequenceMoves = {};
  if (data.invoiceNext !== undefined) moves.invoiceNext = parseSequence(data.invoiceNext, 'invoiceNext');
  if (data.creditNoteNext !== undefined) moves.creditNoteNext = parseSequence(data.creditNoteNext, 'creditNoteNext');
  return { patch, moves };
}

/**
 * Moves the sequences inside the update's unit of work, each by a conditional write: a number
 * issued meanwhile by another process makes the move fail rather than hand that number out twice.
 */
export async function applySequenceMoves(tx: Tx, merchantId: string, moves: SequenceMoves): Promise<void> {
  for (const which of ['invoiceNext', 'creditNoteNext'] as const) {
    const requested = moves[which];
    if (requested === undefined) continue;
    const current = await tx.moveDocumentSequence(merchantId, which, requested);
    if (current !== undefined)
      throw invalidParam(
        which,
        `must be at least ${current}, the next number now: a sequence only moves forward, so no number is used twice; nothing was changed`,
      );
  }
}

export interface MerchantIdentityView {
  legalName?: string;
  address?: string;
  taxId?: string;
  supportEmail?: string;
  emailFrom?: string;
  invoicePrefix: string;
  invoiceNext: number;
  creditNoteNext: number;
  customerEmails: 'on' | 'off';
}

export function identityView(row: MerchantRow): MerchantIdentityView {
  return {
    ...(row.legalName ? { legalName: row.legalName } : {}),
    ...(row.address ? { address: row.address } : {}),
    ...(row.taxId ? { taxId: row.taxId } : {}),
    ...(row.supportEmail ? { supportEmail: row.supportEmail } : {}),
    ...(row.emailFrom ? { emailFrom: row.emailFrom } : {}),
    invoicePrefix: row.invoicePrefix,
    invoiceNext: row.invoiceNext,
    creditNoteNext: row.creditNoteNext,
    customerEmails: row.customerEmails,
  };
}
