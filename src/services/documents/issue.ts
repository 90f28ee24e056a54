import type { Ctx } from '../../ctx.js';
import {
  type Customer,
  customerOf,
  type InvoiceLine,
  invoiceLines,
  type LineSource,
  type PaymentMethod,
  type Reduction,
} from '../../domain/documents.js';
import { newId, randomToken } from '../../domain/ids.js';
import type { BillingRecordRow, InvoiceRow, RefundRow, TransactionRow, Tx } from '../../store/store.js';
import { itemsOf } from '../transactions/input.js';
import { queueReceipt } from '../customer-email.js';
import { invoiceUrl } from './urls.js';

/**
 * Issuing documents (SPEC §17), always INSIDE the unit of work that records the charge or the
 * refund: the number is taken there (tx.issueInvoice), so a unit that rolls back takes no number
 * and a committed charge never lacks its invoice. Never call these where the unit may commit
 * without the success they document.
 */

/** What an invoice's `document` column holds (the customer and seller have columns of their own). */
export interface InvoiceBody {
  lines: InvoiceLine[];
  payment?: PaymentMethod;
  relationId: string;
  subscriptionCode?: string;
}

/** What a subscription charge is for: its plan over the service period [from, to), less credits and discounts. */
export interface PlanCharge {
  planId: string;
  from: number;
  to: number;
  reductions: Reduction[];
}

/** The facts of a successful charge an invoice needs: a transaction row, or a renewal's claimed record. */
export interface ChargeFacts {
  transactionId: string;
  merchantId: string;
  relationId: string | null;
  amount: number;
  currency: string;
  cardBrand: string | null;
  cardLast4: string | null;
  /** JSON of the billingAddress sent with the charge. */
  billingAddress: string | null;
  items: string | null;
  subscriptionId: string | null;
  subscriptionCode?: string | undefined;
  userId: string | null;
}

export interface IssuedInvoice {
  invoiceNumber: string;
  invoiceUrl: string;
}

/** The facts of a transaction row (PAY, CHECKOUT, a first charge, a CHANGE): `subscriptionCode` when it has one. */
export const factsOf = (txn: TransactionRow, subscriptionCode?: string): ChargeFacts => ({
  transactionId: txn.id,
  merchantId: txn.merchantId,
  relationId: txn.relationId,
  amount: txn.amount,
  currency: txn.currency,
  cardBrand: txn.cardBrand,
  cardLast4: txn.cardLast4,
  billingAddress: txn.billingAddress,
  items: txn.items,
  subscriptionId: txn.subscriptionId,
  subscriptionCode,
  userId: txn.userId,
});

/** A coupon's discount on a billing record (SPEC §19), as the invoice's negative line. */
export function discountOf(record: Pick<BillingRecordRow, 'couponCode' | 'discountAmount'> | undefined): Reduction[] {
  if (!record?.couponCode || record.discountAmount <= 0) return [];
  return [{ description: `Discount (${record.couponCode})`, amount: record.discountAmount }];
}

/**
 * Plans never change their name once created, so a process keeps the names it has read: a renewal
 * run's invoices cost no read per record. Bounded, because a process may see many plans.
 */
const planNames = new Map<string, string>();
const PLAN_NAMES_KEPT = 2000;

async function planName(tx: Tx, planId: string): Promise<string> {
  const known = planNames.get(planId);
  if (known !== undefined) return known;
  const name = (await tx.getPlanInfo(planId))?.name ?? 'Subscription';
  if (planNames.size >= PLAN_NAMES_KEPT) planNames.clear();
  planNames.set(planId, name);
  return name;
}

function parseObject(json: string | null): Record<string, unknown> | undefined {
  if (!json) return undefined;
  try {
    const v: unknown = JSON.parse(json);
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The charge's own customer, or null to bill the subscription's first customer (the store fills it in). */
function customerJson(f: ChargeFacts): string | null {
  const billing = parseObject(f.billingAddress);
  if (!billing && f.subscriptionId) return null;
  const c: Customer = customerOf(billing);
  return JSON.stringify(c);
}

async function linesOf(tx: Tx, f: ChargeFacts, plan: PlanCharge | undefined): Promise<InvoiceLine[]> {
  let source: LineSource;
  const items = itemsOf(f.items);
  if (items && items.length > 0) source = { kind: 'items', items };
  else if (plan) {
    const price = f.amount + plan.reductions.reduce((sum, r) => sum + Math.max(0, r.amount), 0);
    source = {
      kind: 'plan',
      planName: await planName(tx, plan.planId),
      from: plan.from,
      to: plan.to,
      price,
      reductions: plan.reductions,
    };
  } else source = { kind: 'amount', description: f.relationId ? `Order ${f.relationId}` : 'Payment' };
  return invoiceLines(source, f.amount, f.currency);
}

/**
 * The invoice of a successful charge, or undefined for a charge of zero (a trial's first charge).
 * One store statement on PostgreSQL (number, seller and document together), plus the plan's name
 * the first time a process bills that plan.
 */
export async function issueInvoice(
  ctx: Ctx,
  tx: Tx,
  f: ChargeFacts,
  plan: PlanCharge | undefined,
  now: number,
): Promise<IssuedInvoice | undefined> {
  if (f.amount <= 0) return undefined;
  const payment = f.cardBrand && f.cardLast4 ? { brand: f.cardBrand, last4: f.cardLast4 } : undefined;
  const body: InvoiceBody = {
    lines: await linesOf(tx, f, plan),
    ...(payment ? { payment } : {}),
    relationId: f.relationId ?? '',
    ...(f.subscriptionCode ? { subscriptionCode: f.subscriptionCode } : {}),
  };
  const token = randomToken(24);
  const number = await tx.issueInvoice({
    id: newId('inv', now),
    merchantId: f.merchantId,
    token,
    transactionId: f.transactionId,
    subscriptionId: f.subscriptionId,
    userId: f.userId,
    currency: f.currency,
    total: f.amount,
    issuedAt: now,
    customer: customerJson(f),
    document: JSON.stringify(body),
  });
  if (number === undefined) throw new Error(`merchant ${f.merchantId} of transaction ${f.transactionId} is missing`);
  await queueReceipt(ctx, tx, f, number, now);
  return { invoiceNumber: number, invoiceUrl: invoiceUrl(ctx, token) };
}

/** The credit note of a settled refund: its number, in the refund's unit of work. */
export async function issueCreditNote(tx: Tx, refund: RefundRow, txn: TransactionRow, now: number): Promise<string> {
  const invoice: InvoiceRow | undefined = await tx.getInvoiceByTransaction(txn.id);
  const customer = invoice?.customer ?? JSON.stringify(customerOf(parseObject(txn.billingAddress)));
  const number = await tx.issueCreditNote({
    id: newId('cn', now),
    merchantId: txn.merchantId,
    refundId: refund.id,
    transactionId: txn.id,
    invoiceId: invoice?.id ?? null,
    invoiceNumber: invoice?.number ?? null,
    token: randomToken(24),
    currency: refund.currency,
    amount: refund.amount,
    issuedAt: now,
    customer,
    document: JSON.stringify({ relationId: txn.relationId ?? '' }),
  });
  if (number === undefined) throw new Error(`merchant ${txn.merchantId} of transaction ${txn.id} is missing`);
  return number;
}
