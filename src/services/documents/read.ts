import type { Ctx } from '../../ctx.js';
import type { CreditNote, Customer, Invoice, InvoiceLine, MerchantIdentity } from '../../domain/documents.js';
import { formatAmount } from '../../domain/money.js';
import { formatTime } from '../../domain/time.js';
import type { CreditNoteRow, InvoiceRow } from '../../store/store.js';
import type { LinkedCreditNote } from './credit-note-links.js';
import type { InvoiceBody } from './issue.js';
import { creditNotePdfUrl, creditNoteUrl, invoicePdfUrl, invoiceUrl } from './urls.js';

/** Stored documents back as the domain's Invoice and CreditNote, and as the API's JSON (all strings, SPEC §3). */

function parse<T>(json: string, fallback: T): T {
  try {
    return JSON.parse(json) as T;
  } catch {
    return fallback;
  }
}

type Seller = Pick<InvoiceRow, 'sellerName' | 'legalName' | 'address' | 'taxId' | 'supportEmail'>;

function sellerOf(r: Seller): MerchantIdentity {
  return {
    name: r.sellerName,
    ...(r.legalName ? { legalName: r.legalName } : {}),
    ...(r.address ? { address: r.address } : {}),
    ...(r.taxId ? { taxId: r.taxId } : {}),
    ...(r.supportEmail ? { supportEmail: r.supportEmail } : {}),
  };
}

const customerOf = (json: string): Customer => ({ addressLines: [], ...parse<Partial<Customer>>(json, {}) });

/**
 * Whether a document's charge was made on the sandbox (a missing charge reads as one): its page, PDF,
 * text and email then say no real money moved. A Stripe merchant's never do.
 */
async function onSandbox(ctx: Ctx, transactionId: string): Promise<boolean> {
  return ctx.channel.name === 'sandbox' && (await ctx.store.getTransaction(transactionId))?.channel !== 'stripe';
}

/** An invoice as every reader shows it: the stored document, marked when its charge was a sandbox one. */
export async function readInvoice(ctx: Ctx, r: InvoiceRow): Promise<Invoice> {
  return { ...toInvoice(r), sandbox: await onSandbox(ctx, r.transactionId) };
}

/** A credit note as every reader shows it (see readInvoice). */
export async function readCreditNote(ctx: Ctx, r: CreditNoteRow): Promise<CreditNote> {
  return { ...toCreditNote(r), sandbox: await onSandbox(ctx, r.transactionId) };
}

export function toInvoice(r: InvoiceRow): Invoice {
  const body = parse<InvoiceBody>(r.document, { lines: [], relationId: '' });
  return {
    number: r.number,
    issuedAt: r.issuedAt,
    currency: r.currency,
    merchant: sellerOf(r),
    customer: customerOf(r.customer),
    lines: body.lines,
    total: r.total,
    ...(body.payment ? { payment: body.payment } : {}),
    transactionOrderId: r.transactionId,
    relationId: body.relationId,
    ...(body.subscriptionCode ? { subscriptionCode: body.subscriptionCode } : {}),
    ...(body.discount ? { discount: body.discount } : {}),
  };
}

export function toCreditNote(r: CreditNoteRow): CreditNote {
  const body = parse<{ relationId?: string }>(r.document, {});
  return {
    number: r.number,
    invoiceNumber: r.invoiceNumber ?? '',
    issuedAt: r.issuedAt,
    currency: r.currency,
    amount: r.amount,
    merchant: sellerOf(r),
    customer: customerOf(r.customer),
    transactionOrderId: r.transactionId,
    relationId: body.relationId ?? '',
  };
}

export interface LineView {
  description: string;
  periodFrom?: string;
  periodTo?: string;
  quantity?: string;
  unitPrice?: string;
  amount?: string;
}

export interface CreditNoteView {
  creditNoteNumber: string;
  invoiceNumber?: string;
  issuedAt: string;
  amount: string;
  currency: string;
  transactionOrderId: string;
  /** Its hosted page and PDF, as an invoice's. */
  url: string;
  pdfUrl: string;
}

export interface InvoiceView {
  invoiceNumber: string;
  merchantId: string;
  issuedAt: string;
  total: string;
  currency: string;
  transactionOrderId: string;
  relationId?: string;
  subscriptionCode?: string;
  userId?: string;
  seller: MerchantIdentity;
  customer: Customer;
  lines: LineView[];
  /** The coupon that discounted the charge and by how much (SPEC §19), shown as a negative line too. */
  couponCode?: string;
  discountAmount?: string;
  /** The card as printed: brand and last four digits. */
  paidWith?: { brand: string; last4: string };
  url: string;
  pdfUrl: string;
  creditNotes?: CreditNoteView[];
}

function lineView(l: InvoiceLine, currency: string, zone: string): LineView {
  return {
    description: l.description,
    ...(l.period ? { periodFrom: formatTime(l.period.from, zone), periodTo: formatTime(l.period.to, zone) } : {}),
    ...(l.quantity !== undefined ? { quantity: String(l.quantity) } : {}),
    ...(l.unitAmount !== undefined ? { unitPrice: formatAmount(l.unitAmount, currency) } : {}),
    ...(l.amount !== undefined ? { amount: formatAmount(l.amount, currency) } : {}),
  };
}

export function creditNoteView(ctx: Ctx, r: LinkedCreditNote): CreditNoteView {
  return {
    creditNoteNumber: r.number,
    ...(r.invoiceNumber ? { invoiceNumber: r.invoiceNumber } : {}),
    issuedAt: formatTime(r.issuedAt, ctx.zone),
    amount: formatAmount(r.amount, r.currency),
    currency: r.currency,
    transactionOrderId: r.transactionId,
    url: creditNoteUrl(ctx, r.token),
    pdfUrl: creditNotePdfUrl(ctx, r.token),
  };
}

export function invoiceView(ctx: Ctx, r: InvoiceRow, creditNotes?: readonly LinkedCreditNote[]): InvoiceView {
  const inv = toInvoice(r);
  return {
    invoiceNumber: r.number,
    merchantId: r.merchantId,
    issuedAt: formatTime(r.issuedAt, ctx.zone),
    total: formatAmount(r.total, r.currency),
    currency: r.currency,
    transactionOrderId: r.transactionId,
    ...(inv.relationId ? { relationId: inv.relationId } : {}),
    ...(inv.subscriptionCode ? { subscriptionCode: inv.subscriptionCode } : {}),
    ...(r.userId ? { userId: r.userId } : {}),
    seller: inv.merchant,
    customer: inv.customer,
    lines: inv.lines.map((l) => lineView(l, r.currency, ctx.zone)),
    ...(inv.discount
      ? { couponCode: inv.discount.couponCode, discountAmount: formatAmount(inv.discount.amount, r.currency) }
      : {}),
    ...(inv.payment ? { paidWith: { brand: inv.payment.brand, last4: inv.payment.last4 } } : {}),
    url: invoiceUrl(ctx, r.token),
    pdfUrl: invoicePdfUrl(ctx, r.token),
    ...(creditNotes ? { creditNotes: creditNotes.map((c) => creditNoteView(ctx, c)) } : {}),
  };
}
