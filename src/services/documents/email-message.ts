import type { Ctx } from '../../ctx.js';
import { layoutCreditNote, layoutInvoice } from '../../domain/document-layout.js';
import type { CustomerEmail, EmailSender, ReceiptStopped } from '../../notify/email/message.js';
import type { CustomerEmailRow } from '../../store/store.js';
import { withLinks } from './credit-note-links.js';
import { readCreditNote, readInvoice } from './read.js';
import { creditNoteUrl, invoiceUrl } from './urls.js';

/**
 * A receipt or credit-note email at delivery (SPEC §17): the issued document read back by its
 * number (documents never change, so reading it late shows what was issued), and its PDF,
 * rendered off the event loop as the document pages' are. Undefined when the document cannot be
 * found (a damaged row).
 */
export async function documentEmail(
  ctx: Ctx,
  row: CustomerEmailRow,
  sender: EmailSender,
): Promise<{ message: CustomerEmail; pdf?: Buffer } | undefined> {
  const facts = JSON.parse(row.details) as {
    invoiceNumber?: string;
    creditNoteNumber?: string;
    stopped?: ReceiptStopped;
  };
  if (row.kind === 'receipt' && facts.invoiceNumber) {
    const [found] = await ctx.store.invoicesByNumber(row.merchantId, facts.invoiceNumber);
    if (!found) return undefined;
    const invoice = await readInvoice(ctx, found);
    const { renderPdfOffThread } = await import('../../documents/pdf-renderer.js');
    const pdf = await renderPdfOffThread(layoutInvoice(invoice, ctx.zone));
    return {
      message: {
        kind: 'receipt',
        to: row.recipient,
        sender,
        invoice,
        invoiceUrl: invoiceUrl(ctx, found.token),
        ...(facts.stopped ? { stopped: facts.stopped } : {}),
      },
      pdf,
    };
  }
  if (row.kind === 'credit-note' && facts.creditNoteNumber) {
    const [stored] = await ctx.store.creditNotesByNumber(row.merchantId, facts.creditNoteNumber);
    if (!stored) return undefined;
    const [found] = await withLinks(ctx, [stored]);
    if (!found) return undefined;
    const txn = await ctx.store.getTransaction(found.transactionId);
    const invoice = await ctx.store.getInvoiceByTransaction(found.transactionId);
    const creditNote = await readCreditNote(ctx, found);
    const { renderPdfOffThread } = await import('../../documents/pdf-renderer.js');
    const pdf = await renderPdfOffThread(layoutCreditNote(creditNote, ctx.zone));
    return {
      message: {
        kind: 'credit-note',
        to: row.recipient,
        sender,
        creditNote,
        creditNoteUrl: creditNoteUrl(ctx, found.token),
        ...(txn?.cardBrand && txn.cardLast4 ? { payment: { brand: txn.cardBrand, last4: txn.cardLast4 } } : {}),
        ...(invoice ? { invoiceUrl: invoiceUrl(ctx, invoice.token) } : {}),
      },
      pdf,
    };
  }
  return undefined;
}
