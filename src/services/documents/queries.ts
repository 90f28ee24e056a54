import { z } from 'zod';
import type { Ctx } from '../../ctx.js';
import { layoutCreditNote, layoutInvoice, type DocumentLayout } from '../../domain/document-layout.js';
import { invalidParam, notFound } from '../../domain/errors.js';
import { blankAbsent, integerField, optionalString, parseInput, requiredString } from '../../domain/fields.js';
import type { DocumentFilter, InvoiceRow } from '../../store/store.js';
import type { Page, PageRequest } from '../operator.js';
import { withLinks } from './credit-note-links.js';
import { creditNotePdfUrl } from './urls.js';
import {
  creditNoteView,
  type CreditNoteView,
  invoiceView,
  type InvoiceView,
  readCreditNote,
  readInvoice,
} from './read.js';

/** Reading invoices and credit notes: the API's list and detail, the CLI's, and the hosted page's. */

export const INVOICE_LIST_REQUEST = z.object({
  transactionOrderId: optionalString(200),
  subscriptionCode: optionalString(200),
  userId: optionalString(200),
  pageNum: blankAbsent(integerField(1, 1_000_000_000)).default(1),
  pageSize: blankAbsent(integerField(1, 100)).default(10),
});

export const INVOICE_DETAIL_REQUEST = z.object({
  invoiceNumber: requiredString(100),
});

export interface InvoicePage {
  total: number;
  pageNum: number;
  pageSize: number;
  records: InvoiceView[];
}

const FILTERS = ['transactionOrderId', 'subscriptionCode', 'userId'] as const;

/**
 * GET /invoice/list: invoices newest first, a page at a time, of exactly one of transactionOrderId,
 * subscriptionCode and userId (SPEC §17). Another merchant's transaction or subscription is 1007.
 */
export async function listInvoices(ctx: Ctx, merchantId: string, input: unknown): Promise<InvoicePage> {
  const data = parseInput(INVOICE_LIST_REQUEST, input);
  const filter = await invoiceFilter(ctx, merchantId, data, true);
  const { pageNum, pageSize } = data;
  const total = await ctx.store.countInvoices(filter);
  const rows = await ctx.store.pageInvoices(filter, pageSize, (pageNum - 1) * pageSize);
  return { total, pageNum, pageSize, records: rows.map((r) => invoiceView(ctx, r)) };
}

/** `paygate invoice list`: the operator may name no filter, and no merchant (every merchant's invoices). */
export async function pageInvoiceViews(
  ctx: Ctx,
  merchantId: string | undefined,
  input: {
    transactionOrderId?: string | undefined;
    subscriptionCode?: string | undefined;
    userId?: string | undefined;
  },
  req: PageRequest,
): Promise<Page<InvoiceView>> {
  const filter = await invoiceFilter(
    ctx,
    merchantId,
    parseInput(INVOICE_LIST_REQUEST.omit({ pageNum: true, pageSize: true }), input),
    false,
  );
  const rows = await ctx.store.pageInvoices(filter, req.limit + 1, (req.page - 1) * req.limit);
  return {
    items: rows.slice(0, req.limit).map((r) => invoiceView(ctx, r)),
    page: req.page,
    limit: req.limit,
    more: rows.length > req.limit,
  };
}

type Filters = { [K in (typeof FILTERS)[number]]?: string | undefined };

async function invoiceFilter(
  ctx: Ctx,
  merchantId: string | undefined,
  data: Filters,
  oneRequired: boolean,
): Promise<DocumentFilter> {
  const given = FILTERS.filter((k) => data[k] !== undefined);
  if (given.length > 1)
    throw invalidParam(given[1] ?? 'userId', `give one of ${FILTERS.join(', ')}, not ${given.join(' and ')}`);
  if (given.length === 0 && oneRequired)
    throw invalidParam('transactionOrderId', `one of ${FILTERS.join(', ')} is required`);
  const filter: DocumentFilter = { merchantId };
  if (data.transactionOrderId !== undefined) {
    const owner = await ctx.store.transactionOwner(data.transactionOrderId);
    if (!owner || (merchantId !== undefined && owner !== merchantId)) throw notFound('transaction');
    filter.transactionId = data.transactionOrderId;
  }
  if (data.subscriptionCode !== undefined) {
    const id = await ctx.store.findSubscriptionId(data.subscriptionCode, merchantId);
    if (!id) throw notFound('subscription');
    filter.subscriptionId = id;
  }
  if (data.userId !== undefined) filter.userId = data.userId;
  return filter;
}

export async function merchantInvoice(ctx: Ctx, merchantId: string | undefined, number: string): Promise<InvoiceRow> {
  const rows = await ctx.store.invoicesByNumber(merchantId, number);
  const [first, second] = rows;
  if (!first) throw notFound('invoice');
  if (second) throw invalidParam('merchant', `several merchants have an invoice ${number}: name one with --merchant`);
  return first;
}

/** GET /invoice/detail: the invoice with its credit notes, its page and its PDF. */
export async function invoiceDetail(ctx: Ctx, merchantId: string, input: unknown): Promise<InvoiceView> {
  const { invoiceNumber } = parseInput(INVOICE_DETAIL_REQUEST, input);
  const row = await merchantInvoice(ctx, merchantId, invoiceNumber);
  return invoiceView(ctx, row, await withLinks(ctx, await ctx.store.creditNotesOfTransaction(row.transactionId)));
}

/** A document as the CLI shows it: an invoice (with its credit notes) or a credit note, by number. */
export type DocumentFound =
  | { kind: 'invoice'; view: InvoiceView; layout: DocumentLayout }
  | { kind: 'credit-note'; view: CreditNoteView; layout: DocumentLayout };

export async function findDocument(ctx: Ctx, merchantId: string | undefined, number: string): Promise<DocumentFound> {
  if (number.trim() === '') throw invalidParam('number', 'is required, such as INV-000042');
  const notes = await ctx.store.creditNotesByNumber(merchantId, number);
  const [note, other] = notes;
  if (note && other)
    throw invalidParam('merchant', `several merchants have a credit note ${number}: name one with --merchant`);
  if (note) {
    const [linked] = await withLinks(ctx, [note]);
    if (!linked) throw notFound('credit note');
    return {
      kind: 'credit-note',
      view: creditNoteView(ctx, linked),
      layout: layoutCreditNote(await readCreditNote(ctx, note), ctx.zone),
    };
  }
  const row = await merchantInvoice(ctx, merchantId, number);
  return {
    kind: 'invoice',
    view: invoiceView(ctx, row, await withLinks(ctx, await ctx.store.creditNotesOfTransaction(row.transactionId))),
    layout: layoutInvoice(await readInvoice(ctx, row), ctx.zone),
  };
}

/** A hosted page's document: its number, its layout and its PDF's link. */
export interface HostedDocument {
  number: string;
  layout: DocumentLayout;
  pdfUrl: string;
}

const TOKEN_RE = /^[A-Za-z0-9_-]{16,64}$/;

/** The hosted page's document: any token that is not an invoice's reads as absent (1007). */
export async function invoiceByToken(ctx: Ctx, token: string): Promise<HostedDocument> {
  const row = TOKEN_RE.test(token) ? await ctx.store.getInvoiceByToken(token) : undefined;
  if (!row) throw notFound('invoice');
  return {
    number: row.number,
    layout: layoutInvoice(await readInvoice(ctx, row), ctx.zone),
    pdfUrl: invoiceView(ctx, row).pdfUrl,
  };
}

/** The same for a credit note's page (`/credit-note/{token}`). */
export async function creditNoteByToken(ctx: Ctx, token: string): Promise<HostedDocument> {
  const row = TOKEN_RE.test(token) ? await ctx.store.getCreditNoteByToken(token) : undefined;
  if (!row?.token) throw notFound('credit note');
  return {
    number: row.number,
    layout: layoutCreditNote(await readCreditNote(ctx, row), ctx.zone),
    pdfUrl: creditNotePdfUrl(ctx, row.token),
  };
}
