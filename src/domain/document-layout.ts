import type { CreditNote, Customer, Invoice, InvoiceLine, MerchantIdentity, PaymentMethod } from './documents.js';
import { formatMoney } from './money.js';
import { formatTime } from './time.js';

/**
 * The one layout of a document: every word and number a reader sees, already formatted, in
 * reading order. The HTML page and the PDF both draw exactly this, so they cannot disagree
 * (ARCHITECTURE.md, "The subscriber's side"). Pure: the zone comes from the caller.
 */

export interface LabelledValue {
  label: string;
  value: string;
}

export interface PartyBlock {
  title: string;
  lines: string[];
}

export interface LineTable {
  columns: readonly [string, string, string, string];
  /** Description, quantity, unit price, amount; a blank cell is an empty string. */
  rows: Array<[string, string, string, string]>;
}

export interface DocumentLayout {
  /** "Invoice" or "Credit note". */
  heading: string;
  number: string;
  /** Title of the page and of the PDF's metadata. */
  title: string;
  seller: PartyBlock;
  buyer?: PartyBlock;
  meta: LabelledValue[];
  table: LineTable;
  totals: LabelledValue[];
  notes: string[];
}

/** Printed on every document of a sandbox charge: on the page, in the PDF and in the CLI's text. */
export const SANDBOX_NOTE = 'Sandbox — test mode: no real money moved.';

const withSandbox = (doc: { sandbox?: boolean }, notes: string[]): string[] =>
  doc.sandbox ? [SANDBOX_NOTE, ...notes] : notes;

export const LINE_COLUMNS = ['Description', 'Qty', 'Unit price', 'Amount'] as const;

/** `VISA ••4242`: a card on a document is its brand and last four digits, never more. */
export function paymentLabel(p: PaymentMethod): string {
  return `${p.brand.toUpperCase()} ••${p.last4.replace(/\D/g, '').slice(-4)}`;
}

/** A service period as dates in the shop's zone: `2026-01-01 – 2026-02-01` (the end is the next renewal). */
export function periodLabel(from: number, to: number, zone: string): string {
  return `${formatTime(from, zone).slice(0, 10)} – ${formatTime(to, zone).slice(0, 10)}`;
}

export function sellerBlock(m: MerchantIdentity): PartyBlock {
  const lines = [m.legalName ?? m.name];
  if (m.legalName && m.legalName !== m.name) lines.push(`Trading as ${m.name}`);
  if (m.address) lines.push(...splitLines(m.address));
  if (m.taxId) lines.push(`Tax ID: ${m.taxId}`);
  if (m.supportEmail) lines.push(m.supportEmail);
  return { title: 'From', lines };
}

export function buyerBlock(c: Customer): PartyBlock | undefined {
  const lines = [c.name, ...c.addressLines, c.email].filter((l): l is string => Boolean(l));
  return lines.length > 0 ? { title: 'Billed to', lines } : undefined;
}

function splitLines(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '');
}

function lineRow(line: InvoiceLine, currency: string, zone: string): [string, string, string, string] {
  const description = line.period
    ? `${line.description} (${periodLabel(line.period.from, line.period.to, zone)})`
    : line.description;
  return [
    description,
    line.quantity === undefined ? '' : String(line.quantity),
    line.unitAmount === undefined ? '' : formatMoney(line.unitAmount, currency),
    line.amount === undefined ? '' : formatMoney(line.amount, currency),
  ];
}

export function layoutInvoice(inv: Invoice, zone: string): DocumentLayout {
  const buyer = buyerBlock(inv.customer);
  const meta: LabelledValue[] = [
    { label: 'Invoice number', value: inv.number },
    { label: 'Issued', value: formatTime(inv.issuedAt, zone) },
    { label: 'Order', value: inv.transactionOrderId },
  ];
  // A renewal has no reference of the merchant's: the line is left out rather than printed empty.
  if (inv.relationId) meta.push({ label: 'Reference', value: inv.relationId });
  if (inv.subscriptionCode) meta.push({ label: 'Subscription', value: inv.subscriptionCode });
  if (inv.payment) meta.push({ label: 'Paid with', value: paymentLabel(inv.payment) });
  return {
    heading: 'Invoice',
    number: inv.number,
    title: `Invoice ${inv.number} — ${inv.merchant.name}`,
    seller: sellerBlock(inv.merchant),
    ...(buyer ? { buyer } : {}),
    meta,
    table: { columns: LINE_COLUMNS, rows: inv.lines.map((l) => lineRow(l, inv.currency, zone)) },
    totals: [{ label: 'Total paid', value: formatMoney(inv.total, inv.currency) }],
    notes: withSandbox(inv, [`Paid in full on ${formatTime(inv.issuedAt, zone).slice(0, 10)}.`]),
  };
}

export function layoutCreditNote(cn: CreditNote, zone: string): DocumentLayout {
  const buyer = buyerBlock(cn.customer);
  const meta: LabelledValue[] = [
    { label: 'Credit note number', value: cn.number },
    { label: 'Issued', value: formatTime(cn.issuedAt, zone) },
  ];
  // A charge made before paygate issued invoices has none to name: the credit note names the order.
  if (cn.invoiceNumber) meta.push({ label: 'For invoice', value: cn.invoiceNumber });
  meta.push({ label: 'Order', value: cn.transactionOrderId });
  if (cn.relationId) meta.push({ label: 'Reference', value: cn.relationId });
  const what = cn.invoiceNumber ? `invoice ${cn.invoiceNumber}` : `order ${cn.transactionOrderId}`;
  return {
    heading: 'Credit note',
    number: cn.number,
    title: `Credit note ${cn.number} — ${cn.merchant.name}`,
    seller: sellerBlock(cn.merchant),
    ...(buyer ? { buyer } : {}),
    meta,
    table: { columns: LINE_COLUMNS, rows: [[`Refund of ${what}`, '', '', formatMoney(-cn.amount, cn.currency)]] },
    totals: [{ label: 'Total credited', value: formatMoney(cn.amount, cn.currency) }],
    notes: withSandbox(cn, ['Refunded to the original payment method.']),
  };
}
