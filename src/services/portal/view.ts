import type { Ctx } from '../../ctx.js';
import { couponLasts } from '../../domain/discount.js';
import { formatMoney } from '../../domain/money.js';
import { portalActionsOf, type PortalAction } from '../../domain/portal-actions.js';
import { nextState } from '../../domain/subscription-state.js';
import { formatTime } from '../../domain/time.js';
import type { BillingRecordRow, SubscriptionRow } from '../../store/store.js';
import { withLinks } from '../documents/credit-note-links.js';
import { creditNotePdfUrl, creditNoteUrl, invoicePdfUrl, invoiceUrl } from '../documents/urls.js';
import { cardReplaceable } from '../card-update/rules.js';
import { couponInForce } from '../coupon-charge.js';
import { newPlanStart } from '../plan-change/period-end.js';
import { stripeChallengeOrigins } from '../pages.js';
import { couponText, type DiscountLine, discountLine } from './coupon-text.js';
import type { OpenPortal } from './session.js';

/** How many of a subscription's billing records the page lists, newest first. */
export const HISTORY_SHOWN = 12;

export interface PortalRecord {
  time: string;
  type: string;
  amount: string;
  status: string;
  failReason?: string;
  /** What a coupon took off this charge. */
  discount?: DiscountLine;
  /** The charge's invoice: its number, hosted page and PDF. */
  invoice?: DocumentLink;
  /** The credit notes of its refunds, oldest first. */
  creditNotes: DocumentLink[];
}

export interface DocumentLink {
  number: string;
  url: string;
  pdfUrl: string;
}

export interface PortalSubscription {
  subscriptionId: string;
  subscriptionCode: string;
  planName: string;
  /** `9.99 USD every month`. */
  price: string;
  status: string;
  endTime?: string;
  /**
   * The next charge: when, and exactly how much (a retry, a pending plan, carried credit and a
   * coupon's discount included), and the discount in it.
   */
  next?: { time: string; amount: string; retry: boolean; discount?: DiscountLine };
  /** The coupon in force while it still discounts a charge: `WELCOME: 50% off, 2 more payments`. */
  coupon?: string;
  /**
   * A change at period end: the plan, when it is first charged, and whether a retry of the
   * current plan's payment (the "next attempt") comes before that.
   */
  pendingPlan?: { name: string; startsAt?: string; afterRetry: boolean };
  /** `VISA ••4242`, and `12/2030`. */
  card?: { label: string; expiry: string };
  history: PortalRecord[];
  /** The actions the merchant allows and the subscription's state permits now. */
  can: ReadonlySet<PortalAction>;
}

export interface PortalView {
  merchantName: string;
  returnUrl?: string;
  sandbox: boolean;
  /** A Stripe merchant: the card form may lead (through paygate's 3DS page) to Stripe's challenge pages. */
  handOverOrigins?: string[];
  subscriptions: PortalSubscription[];
}

const CYCLE: Record<string, string> = { DAILY: 'day', WEEKLY: 'week', MONTHLY: 'month', YEARLY: 'year' };

export function cycleText(cycleType: string, cycleLength: number): string {
  const unit = CYCLE[cycleType] ?? cycleType.toLowerCase();
  return cycleLength === 1 ? `every ${unit}` : `every ${cycleLength} ${unit}s`;
}

/** The subscriber's own subscriptions, newest first: nothing of another user or merchant. */
export async function portalView(ctx: Ctx, portal: OpenPortal): Promise<PortalView> {
  const { session, merchant } = portal;
  const rows = await ctx.store.listSubscriptions(merchant.id, { userId: session.userId });
  const allowed = portalActionsOf(merchant.portalActions);
  const plans = await ctx.store.listPlans(merchant.id, 'ACTIVE');
  const subscriptions: PortalSubscription[] = [];
  for (const s of rows) {
    const others = plans.some((p) => p.currency === s.currency && p.id !== s.planId);
    subscriptions.push(await subscriptionOf(ctx, s, s.planName, { allowed, others }));
  }
  return {
    merchantName: merchant.name,
    ...(session.returnUrl ? { returnUrl: session.returnUrl } : {}),
    sandbox: merchant.channel !== 'stripe',
    ...(merchant.channel === 'stripe' ? { handOverOrigins: stripeChallengeOrigins() } : {}),
    subscriptions,
  };
}

async function subscriptionOf(
  ctx: Ctx,
  s: SubscriptionRow,
  planName: string,
  o: { allowed: ReadonlySet<PortalAction>; others: boolean },
): Promise<PortalSubscription> {
  const money = (minor: number) => formatMoney(minor, s.currency);
  const pending = (await ctx.store.pendingRecords(s.id))[0];
  const pendingStart = s.pendingPlanId !== null ? newPlanStart(s, pending, s.pendingPlanId, ctx.zone) : undefined;
  const card = s.cardId !== null ? await ctx.store.getCard(s.cardId) : undefined;
  const pendingPlan = s.pendingPlanId !== null ? await ctx.store.getPlanInfo(s.pendingPlanId) : undefined;
  // The plan the next charge is for, as the subscription's detail reads it: a coupon restricted to plans may not cover it.
  const coupon = await couponInForce(ctx.store, s, s.pendingPlanId ?? s.planId);
  const can = new Set<PortalAction>();
  if (o.allowed.has('cancel') && nextState(s.status, 'CANCEL') === 'CANCELLED') can.add('cancel');
  if (o.allowed.has('pause') && nextState(s.status, 'PAUSE') !== null) can.add('pause');
  if (o.allowed.has('resume') && nextState(s.status, 'RESUME') !== null) can.add('resume');
  if (o.allowed.has('update-card') && cardReplaceable(s.status)) can.add('update-card');
  if (o.allowed.has('change-plan') && s.status === 'ACTIVE' && o.others) can.add('change-plan');
  return {
    subscriptionId: s.id,
    subscriptionCode: s.code,
    planName,
    price: `${money(s.amount)} ${cycleText(s.cycleType, s.cycleLength)}`,
    status: s.status,
    ...(s.endTime !== null ? { endTime: formatTime(s.endTime, ctx.zone) } : {}),
    ...(pending
      ? {
          next: {
            time: formatTime(pending.scheduledTime, ctx.zone),
            amount: money(pending.amount),
            retry: pending.billingType === 'RETRY',
            ...(pending.couponCode !== null && pending.discountAmount > 0
              ? { discount: discountLine(pending.couponCode, pending.discountAmount, s.currency) }
              : {}),
          },
        }
      : {}),
    ...(coupon && couponLasts(coupon) ? { coupon: couponText(coupon) } : {}),
    ...(pendingPlan
      ? {
          pendingPlan: {
            name: pendingPlan.name,
            ...(pendingStart ? { startsAt: formatTime(pendingStart.time, ctx.zone) } : {}),
            afterRetry: pendingStart?.afterRetry ?? false,
          },
        }
      : {}),
    ...(card?.last4
      ? {
          card: {
            label: `${(card.brand ?? 'Card').toUpperCase()} ••${card.last4}`,
            expiry: `${String(card.expMonth).padStart(2, '0')}/${card.expYear}`,
          },
        }
      : {}),
    history: await Promise.all((await historyOf(ctx, s.id)).map((r) => recordOf(ctx, r, money))),
    can,
  };
}

/**
 * The last HISTORY_SHOWN records that are history: not the charge still to come (the "next
 * payment" above), nor the ones never charged — a RENEW or RETRY cancelled with a pause or a
 * cancel, dated when it would have been — which read as payments that did not happen.
 */
async function historyOf(ctx: Ctx, subscriptionId: string): Promise<BillingRecordRow[]> {
  const kept: BillingRecordRow[] = [];
  for (let offset = 0; kept.length < HISTORY_SHOWN; offset += HISTORY_SHOWN) {
    const page = await ctx.store.pageRecords(subscriptionId, undefined, HISTORY_SHOWN, offset);
    kept.push(...page.filter((r) => r.status !== 'PENDING' && r.status !== 'CANCELLED'));
    if (page.length < HISTORY_SHOWN) break;
  }
  return kept.slice(0, HISTORY_SHOWN);
}

async function recordOf(ctx: Ctx, r: BillingRecordRow, money: (minor: number) => string): Promise<PortalRecord> {
  const invoice = r.transactionId ? await ctx.store.getInvoiceByTransaction(r.transactionId) : undefined;
  const notes = r.transactionId ? await withLinks(ctx, await ctx.store.creditNotesOfTransaction(r.transactionId)) : [];
  return {
    time: formatTime(r.actualTime ?? r.scheduledTime, ctx.zone),
    type: r.billingType,
    amount: money(r.amount),
    status: r.status,
    ...(r.failReason ? { failReason: r.failReason } : {}),
    ...(r.couponCode !== null && r.discountAmount > 0
      ? { discount: discountLine(r.couponCode, r.discountAmount, r.currency) }
      : {}),
    ...(invoice
      ? {
          invoice: {
            number: invoice.number,
            url: invoiceUrl(ctx, invoice.token),
            pdfUrl: invoicePdfUrl(ctx, invoice.token),
          },
        }
      : {}),
    creditNotes: notes.map((n) => ({
      number: n.number,
      url: creditNoteUrl(ctx, n.token),
      pdfUrl: creditNotePdfUrl(ctx, n.token),
    })),
  };
}
