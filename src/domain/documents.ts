import { parseAmount } from './money.js';

/**
 * Invoices and credit notes as data (SPEC §17). A document is built once, when it is issued,
 * and never changes: everything a rendering shows is in it (the merchant's identity and the
 * customer as they were then), so a later `merchant update` cannot rewrite an issued invoice.
 * Money is integer minor units in the document's currency; instants are epoch ms.
 */

/** The seller as printed on the document: the merchant's name, then whatever identity it set. */
export interface MerchantIdentity {
  name: string;
  legalName?: string;
  /** Free text; line breaks are kept. */
  address?: string;
  taxId?: string;
  supportEmail?: string;
}

/** Who was billed, from the transaction's billingAddress (else the subscription's email). */
export interface Customer {
  name?: string;
  /** Printed lines of the postal address, in order. */
  addressLines: string[];
  email?: string;
}

/** How the charge was paid: a card's brand and last four digits, never more of it. */
export interface PaymentMethod {
  brand: string;
  last4: string;
}

export interface InvoiceLine {
  description: string;
  /** A subscription line's service period [from, to). */
  period?: { from: number; to: number };
  quantity?: number;
  unitAmount?: number;
  /** Absent on an item without a price (it is listed, its money is in "Other charges"). */
  amount?: number;
}

export interface Invoice {
  number: string;
  issuedAt: number;
  currency: string;
  merchant: MerchantIdentity;
  customer: Customer;
  lines: InvoiceLine[];
  total: number;
  payment?: PaymentMethod;
  transactionOrderId: string;
  relationId: string;
  subscriptionCode?: string;
  /** The coupon that discounted the charge (SPEC §19); its line is among `lines` too. */
  discount?: { couponCode: string; amount: number };
  /** Charged on the sandbox: the document must not pass for a real receipt. */
  sandbox?: boolean;
}

export interface CreditNote {
  number: string;
  /** Empty for a charge made before paygate issued invoices. */
  invoiceNumber: string;
  issuedAt: number;
  currency: string;
  /** The refunded amount, positive. */
  amount: number;
  merchant: MerchantIdentity;
  customer: Customer;
  transactionOrderId: string;
  relationId: string;
  /** Refunded on the sandbox: no real money moved back. */
  sandbox?: boolean;
}

/** One entry of a transaction's `items` as stored: a price is a (12,2) string. */
export interface ItemInput {
  name: string;
  price?: string;
  num?: string;
}

/** A negative line: the unused credit of a plan change, or a coupon's discount (both positive here). */
export interface Reduction {
  description: string;
  amount: number;
  /** A coupon's discount names its code (SPEC §19); a credit names none. */
  couponCode?: string;
}

export type LineSource =
  | { kind: 'items'; items: ItemInput[] }
  | { kind: 'plan'; planName: string; from: number; to: number; price: number; reductions: Reduction[] }
  | { kind: 'amount'; description: string };

export const OTHER_CHARGES = 'Other charges';
export const ADJUSTMENT = 'Adjustment';

/**
 * The lines of an invoice for `total`, the amount actually charged. The lines always add up to
 * the total: items without a price, or item prices that do not add up to what was charged, leave
 * a difference that is shown as its own line rather than silently dropped or spread.
 */
export function invoiceLines(source: LineSource, total: number, currency: string): InvoiceLine[] {
  const lines: InvoiceLine[] = [];
  if (source.kind === 'items') for (const item of source.items) lines.push(itemLine(item, currency));
  else if (source.kind === 'plan') {
    lines.push({
      description: source.planName,
      period: { from: source.from, to: source.to },
      amount: source.price,
    });
    for (const r of source.reductions) if (r.amount > 0) lines.push({ description: r.description, amount: -r.amount });
  } else lines.push({ description: source.description, amount: total });
  const rest = total - sumLines(lines);
  if (rest !== 0) lines.push({ description: rest > 0 ? OTHER_CHARGES : ADJUSTMENT, amount: rest });
  return lines;
}

export function sumLines(lines: readonly InvoiceLine[]): number {
  return lines.reduce((sum, l) => sum + (l.amount ?? 0), 0);
}

function itemLine(item: ItemInput, currency: string): InvoiceLine {
  const quantity = item.num === undefined ? 1 : Number(item.num);
  const unit = item.price === undefined ? undefined : priceOf(item.price, currency);
  if (unit === undefined) return { description: item.name, quantity };
  const amount = quantity * unit;
  // A huge count × price is not a sum a card paid: list the item, leave its money to the difference line.
  if (!Number.isSafeInteger(amount)) return { description: item.name, quantity };
  return { description: item.name, quantity, unitAmount: unit, amount };
}

/** An item price the currency cannot hold (a fraction of a yen) is shown without one. */
function priceOf(price: string, currency: string): number | undefined {
  try {
    return parseAmount(price, currency);
  } catch {
    return undefined;
  }
}

/** Address fields of the billingAddress document that make up the printed address, in order. */
const STREET_FIELDS = ['street', 'address', 'number'] as const;

/**
 * The customer from a transaction's billingAddress (an object of strings, SPEC §5), with the
 * subscription's email when the address has none.
 */
export function customerOf(billing: Record<string, unknown> | undefined, fallbackEmail?: string): Customer {
  const text = (key: string): string | undefined => {
    const v = billing?.[key];
    return typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined;
  };
  const name = [text('firstName'), text('lastName')].filter(Boolean).join(' ') || undefined;
  const street = STREET_FIELDS.map(text).filter(Boolean).join(' ');
  const cityLine = [text('postalCode'), text('city')].filter(Boolean).join(' ');
  const region = text('provinceName') ?? text('province') ?? text('state');
  const country = text('countryName') ?? text('country');
  const addressLines = [street, cityLine, region, country].filter((l): l is string => Boolean(l));
  const email = text('email') ?? fallbackEmail;
  return { ...(name ? { name } : {}), addressLines, ...(email ? { email } : {}) };
}
