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
import { documentToken, newId, randomToken } from '../../domain/ids.js';
import { emailOfAddress } from '../../domain/email-address.js';
import {
  type BillingRecordRow,
  type InvoiceRow,
  type NewInvoice,
  newCreditNote,
  newInvoice,
  type OutcomeInvoice,
  type RefundRow,
  type SubscriptionRow,
  type TransactionRow,
  type Tx,
} from '../../store/store.js';
import { itemsOf } from '../transactions/input.js';
import { queueReceipt, receiptEmail } from '../customer-email.js';
import type { ReceiptStopped } from '../../notify/email/message.js';
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
  /** The coupon that discounted the charge, and by how much (SPEC §19); absent on invoices issued before it was kept. */
  discount?: { couponCode: string; amount: number };
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
  /** A subscription charge with no billingAddress of its own bills its subscriber. */
  subscriber?: Subscriber | undefined;
}

/** Who a subscription's invoices bill: its customer (name, address) with its email as it is now. */
export type Subscriber = Pick<SubscriptionRow, 'customer' | 'email'>;

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
  return [
    { description: `Discount (${record.couponCode})`, amount: record.discountAmount, couponCode: record.couponCode },
  ];
}

/**
 * Plans never change their name once created, so a process keeps the names it has read: a renewal
 * run's invoices cost no read per record. The read itself is shared while it runs, so a batch's
 * records issued together wait for one read instead of each making its own; a shared read that
 * failed (its own unit of work's trouble) leaves each waiter to read in its own. Bounded, because
 * a process may see many plans.
 */
const planNames = new Map<string, Promise<string | undefined>>();
const PLAN_NAMES_KEPT = 2000;

async function planName(tx: Tx, planId: string): Promise<string> {
  const shared = planNames.get(planId);
  const name = shared ? await shared : undefined;
  if (name !== undefined) return name;
  const read = tx.getPlanInfo(planId).then((info) => info?.name ?? 'Subscription');
  if (!shared) {
    if (planNames.size >= PLAN_NAMES_KEPT) planNames.clear();
    planNames.set(
      planId,
      read.catch(() => {
        planNames.delete(planId);
        return undefined;
      }),
    );
  }
  return read;
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

/** The charge's own customer, else its subscriber's (SPEC §17: else the subscription's email). */
function customerJson(f: ChargeFacts): string {
  const billing = parseObject(f.billingAddress);
  if (billing || !f.subscriber) return JSON.stringify(customerOf(billing));
  const { email: _, ...kept } = (parseObject(f.subscriber.customer) ?? { addressLines: [] }) as unknown as Customer;
  const c: Customer = { ...kept, ...(f.subscriber.email ? { email: f.subscriber.email } : {}) };
  return JSON.stringify(c);
}

/** What a subscription keeps of its first charge's billingAddress for the invoices after it (null: none). */
export function subscriberCustomer(billingAddress: string | null | undefined): string | null {
  const billing = parseObject(billingAddress ?? null);
  return billing ? JSON.stringify(customerOf(billing)) : null;
}

/** The lines of a charge with no plan to name: its items, else its amount. */
function plainLines(f: ChargeFacts): InvoiceLine[] {
  const items = itemsOf(f.items);
  const source: LineSource =
    items && items.length > 0
      ? { kind: 'items', items }
      : { kind: 'amount', description: f.relationId ? `Order ${f.relationId}` : 'Payment' };
  return invoiceLines(source, f.amount, f.currency);
}

async function linesOf(tx: Tx, f: ChargeFacts, plan: PlanCharge | undefined): Promise<InvoiceLine[]> {
  const items = itemsOf(f.items);
  if (!plan || (items && items.length > 0)) return plainLines(f);
  const price = f.amount + plan.reductions.reduce((sum, r) => sum + Math.max(0, r.amount), 0);
  const source: LineSource = {
    kind: 'plan',
    planName: await planName(tx, plan.planId),
    from: plan.from,
    to: plan.to,
    price,
    reductions: plan.reductions,
  };
  return invoiceLines(source, f.amount, f.currency);
}

/** The invoice of a charge with these lines, all but its number (and the seller, copied when it is taken). */
function invoiceRow(f: ChargeFacts, lines: InvoiceLine[], now: number, plan?: PlanCharge): NewInvoice {
  const payment = f.cardBrand && f.cardLast4 ? { brand: f.cardBrand, last4: f.cardLast4 } : undefined;
  const coupon = plan?.reductions.find((r) => r.couponCode !== undefined && r.amount > 0);
  const body: InvoiceBody = {
    lines,
    ...(payment ? { payment } : {}),
    relationId: f.relationId ?? '',
    ...(f.subscriptionCode ? { subscriptionCode: f.subscriptionCode } : {}),
    ...(coupon?.couponCode ? { discount: { couponCode: coupon.couponCode, amount: coupon.amount } } : {}),
  };
  return newInvoice({
    id: newId('inv', now),
    merchantId: f.merchantId,
    token: documentToken(),
    transactionId: f.transactionId,
    subscriptionId: f.subscriptionId,
    userId: f.userId,
    currency: f.currency,
    total: f.amount,
    issuedAt: now,
    customer: customerJson(f),
    document: JSON.stringify(body),
  });
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
  /** A renewal that completed after its subscription was cancelled or paused: the receipt says what it paid for. */
  stopped?: ReceiptStopped,
): Promise<IssuedInvoice | undefined> {
  if (f.amount <= 0) return undefined;
  const row = invoiceRow(f, await linesOf(tx, f, plan), now, plan);
  const number = await tx.issueInvoice(row);
  if (number === undefined) throw new Error(`merchant ${f.merchantId} of transaction ${f.transactionId} is missing`);
  await queueReceipt(ctx, tx, f, number, now, stopped);
  return { invoiceNumber: number, invoiceUrl: invoiceUrl(ctx, row.token) };
}

/**
 * The same invoice and receipt for a charge with no plan (a sandbox PAY), prepared before its
 * write: the write that records the charge takes the number, standing in for it until then is
 * `marker` (OutcomeInvoice); `fields` are the callback's, with the marker as the number.
 */
export function prepareInvoice(
  ctx: Ctx,
  f: ChargeFacts,
  now: number,
): { invoice: OutcomeInvoice; fields: IssuedInvoice } | undefined {
  if (f.amount <= 0) return undefined;
  const row = invoiceRow(f, plainLines(f), now);
  const marker = `number-${randomToken(18)}`;
  const receipt = receiptEmail(ctx, f, emailOfAddress(f.billingAddress), marker, now);
  return {
    invoice: { row, marker, ...(receipt ? { receipt } : {}) },
    fields: { invoiceNumber: marker, invoiceUrl: invoiceUrl(ctx, row.token) },
  };
}

/** The credit note of a settled refund: its number, in the refund's unit of work. */
export async function issueCreditNote(tx: Tx, refund: RefundRow, txn: TransactionRow, now: number): Promise<string> {
  const invoice: InvoiceRow | undefined = await tx.getInvoiceByTransaction(txn.id);
  const customer = invoice?.customer ?? JSON.stringify(customerOf(parseObject(txn.billingAddress)));
  const number = await tx.issueCreditNote(
    newCreditNote({
      id: newId('cn', now),
      merchantId: txn.merchantId,
      refundId: refund.id,
      transactionId: txn.id,
      invoiceId: invoice?.id ?? null,
      invoiceNumber: invoice?.number ?? null,
      token: documentToken(),
      currency: refund.currency,
      amount: refund.amount,
      issuedAt: now,
      customer,
      document: JSON.stringify({ relationId: txn.relationId ?? '' }),
    }),
  );
  if (number === undefined) throw new Error(`merchant ${txn.merchantId} of transaction ${txn.id} is missing`);
  return number;
}
