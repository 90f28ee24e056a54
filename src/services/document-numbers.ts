import { notFound } from '../domain/errors.js';
import { type DocumentKind, documentNumber } from '../domain/invoice-numbering.js';
import type { Tx } from '../store/store.js';

/**
 * The number of a document being issued, taken inside `tx`, the unit of work that writes the
 * document: if it rolls back, so does the number, and the next document gets it (SPEC §17:
 * gap-free, never used twice). Never call it in a unit of work that may commit without the document.
 */
export async function takeDocumentNumber(tx: Tx, merchantId: string, kind: DocumentKind): Promise<string> {
  const taken = await tx.takeDocumentNumber(merchantId, kind === 'invoice' ? 'invoiceNext' : 'creditNoteNext');
  if (!taken) throw notFound('merchant');
  return documentNumber(kind, taken.prefix, taken.sequence);
}
