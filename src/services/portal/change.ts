import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Ctx } from '../../ctx.js';
import { isPaygateError } from '../../domain/errors.js';
import { formatMoney } from '../../domain/money.js';
import { formatTime } from '../../domain/time.js';
import type { SubscriptionRow } from '../../store/store.js';
import { discountedPrice } from '../coupon-charge.js';
import { changeAtPeriodEnd, newPlanStart } from '../plan-change/period-end.js';
import { changeNow } from '../plan-change/now.js';
import { quoteChange, renewalInTheWay, type ShownQuote } from '../plan-change/quote.js';
import type { ChangeResult } from '../plan-change/view.js';
import { cycleText } from './view.js';
import { hashPortalToken } from './session.js';

/**
 * A figure shown on the page is good this long: the credit is priced at the instant it was drawn
 * (as Stripe's proration_date), so an old page must not buy more credit than the time it saw.
 */
export const QUOTE_TTL_MS = 15 * 60_000;

/** One plan the subscriber may move to, with what each way of moving costs. */
export interface ChangeOption {
  planId: string;
  planName: string;
  price: string;
  /**
   * Change now: exactly what is charged at once (or why it cannot be done now), and the coupon's
   * part of it, so the figure can be worked out from what the page shows.
   */
  now: { charge: string; credit: string; discount?: string; quote: SignedQuote } | { unavailable: string };
  /**
   * Change at the period's end: the new price starts with the charge at `startsAt`; `afterRetry`
   * when a retry of the current plan's payment comes before it; `firstCharge` when the coupon
   * held or a carried credit makes that charge differ from the price (as the renewal will be priced).
   */
  periodEnd?: { startsAt: string; afterRetry: boolean; firstCharge?: string };
}

/** The hidden form fields that carry a shown figure back: signed, so a form cannot name its own figure. */
export interface SignedQuote {
  at: string;
  charge: string;
  basis: string;
  mac: string;
}

const macOf = (ctx: Ctx, token: string, subscriptionId: string, planId: string, q: Omit<SignedQuote, 'mac'>) =>
  createHmac('sha256', ctx.vault.derive('portal-quote'))
    .update([hashPortalToken(token), subscriptionId, planId, q.at, q.charge, q.basis].join('\n'))
    .digest('base64url');

/** The merchant's other ACTIVE plans in the subscription's currency, each with its figure now. */
export async function changeOptions(ctx: Ctx, token: string, s: SubscriptionRow): Promise<ChangeOption[]> {
  const now = ctx.clock.now();
  const plans = (await ctx.store.listPlans(s.merchantId, 'ACTIVE')).filter(
    (p) => p.currency === s.currency && p.id !== s.planId,
  );
  const pending = await ctx.store.pendingRecords(s.id);
  const next = pending.find((r) => r.billingType === 'RENEW' || r.billingType === 'RETRY');
  const card = s.cardId !== null ? await ctx.store.getCard(s.cardId) : undefined;
  let blocked: string | undefined;
  try {
    renewalInTheWay(pending, now);
    if (pending.some((r) => r.billingType === 'CHANGE')) blocked = 'another plan change is being charged';
    if (!card) blocked = 'there is no card on file';
  } catch (e) {
    if (!isPaygateError(e)) throw e;
    blocked = 'a renewal is due or being charged; try again after it';
  }
  const options: ChangeOption[] = [];
  for (const p of plans) {
    const money = (minor: number) => formatMoney(minor, p.currency);
    let nowPart: ChangeOption['now'];
    if (blocked) nowPart = { unavailable: blocked };
    else {
      const q = await quoteChange(ctx.store, s, p, now, ctx.zone);
      const fields = { at: String(now), charge: String(q.charge), basis: q.basis };
      nowPart = {
        charge: money(q.charge),
        credit: money(q.credit + s.credit),
        ...(q.discountAmount > 0 ? { discount: `${money(q.discountAmount)} (coupon ${q.couponCode})` } : {}),
        quote: { ...fields, mac: macOf(ctx, token, s.id, p.id, fields) },
      };
    }
    const starts = newPlanStart(s, next, p.id, ctx.zone);
    const first = starts ? await discountedPrice(ctx.store, s, p.id, p.price) : undefined;
    const firstCharge = first && first.amount !== p.price ? { firstCharge: firstChargeText(first, money) } : {};
    options.push({
      planId: p.id,
      planName: p.name,
      price: `${money(p.price)} ${cycleText(p.cycleType, p.cycleLength)}`,
      now: nowPart,
      ...(starts
        ? { periodEnd: { startsAt: formatTime(starts.time, ctx.zone), afterRetry: starts.afterRetry, ...firstCharge } }
        : {}),
    });
  }
  return options;
}

/** `30.00 USD (coupon HALF takes off 30.00 USD; credit 5.00 USD)`: the first charge on the new plan and why it is not the price. */
function firstChargeText(
  first: { amount: number; couponCode: string | null; discountAmount: number; creditApplied: number },
  money: (minor: number) => string,
): string {
  const why = [
    ...(first.discountAmount > 0 ? [`coupon ${first.couponCode} takes off ${money(first.discountAmount)}`] : []),
    ...(first.creditApplied > 0 ? [`your credit pays ${money(first.creditApplied)}`] : []),
  ];
  return `${money(first.amount)} (${why.join('; ')})`;
}

/** The figure a form brought back, if its signature holds and it is recent enough; else undefined (the page redraws). */
export function shownQuote(
  ctx: Ctx,
  token: string,
  subscriptionId: string,
  planId: string,
  form: Partial<SignedQuote>,
): ShownQuote | undefined {
  const { at = '', charge = '', basis = '', mac = '' } = form;
  const want = Buffer.from(macOf(ctx, token, subscriptionId, planId, { at, charge, basis }));
  const got = Buffer.from(mac);
  if (got.length !== want.length || !timingSafeEqual(got, want)) return undefined;
  const shownAt = Number(at);
  const age = ctx.clock.now() - shownAt;
  if (!Number.isSafeInteger(shownAt) || age < 0 || age > QUOTE_TTL_MS) return undefined;
  return { at: shownAt, charge: Number(charge), basis };
}

/** Through the same services as POST /subscription/change: NOW with the shown figure, or PERIOD_END. */
export async function changeFromPortal(
  ctx: Ctx,
  s: SubscriptionRow,
  planId: string,
  shown: ShownQuote | 'PERIOD_END',
): Promise<{ out: ChangeResult; planName: string; charged: string }> {
  const req = { subscriptionId: s.id, planId };
  const out =
    shown === 'PERIOD_END'
      ? await changeAtPeriodEnd(ctx, s.merchantId, { ...req, when: 'PERIOD_END' })
      : await changeNow(ctx, s.merchantId, { ...req, when: 'NOW' }, shown);
  // A change NOW charges exactly the figure shown, or nothing (writeIntent checks it under the lock).
  const charged = formatMoney(shown === 'PERIOD_END' ? 0 : shown.charge, s.currency);
  return { out, planName: (await ctx.store.getPlanInfo(planId))?.name ?? planId, charged };
}
