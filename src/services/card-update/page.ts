import type { Ctx } from '../../ctx.js';
import { isPaygateError } from '../../domain/errors.js';
import { formatAmount } from '../../domain/money.js';
import type { SubscriptionRow } from '../../store/store.js';
import type { ValidCard } from '../../vault/card.js';
import { stripeChallengeOrigins, validatePageCard, type PageCard } from '../pages.js';
import { STATUS } from '../transactions/view.js';
import { CardLinkInUse, replaceCard, type CardUpdateResult } from './check.js';
import { openCardLink } from './link.js';

/** What the hosted card-update page shows: who asks, for what, and which card failed. */
export interface CardPageView {
  token: string;
  merchantName: string;
  planName: string;
  /** What the waiting retry (or the coming renewal) will charge. */
  amount: string;
  currency: string;
  /** The card that failed (or expires), masked to its last four digits. */
  last4?: string;
  /** declined: a renewal failed and a retry waits; expiring: the card expires before the next renewal. */
  reason: 'declined' | 'expiring';
  /** A Stripe merchant: the form may lead (through paygate's 3DS page) to Stripe's challenge pages. */
  handOverOrigins?: string[];
  /** A sandbox merchant's subscription: the page says no real money moves. */
  sandbox: boolean;
}

export interface CardPageOutcome {
  /**
   * processing: Stripe has not answered yet; its webhook or the renewal run settles the check.
   * used: a card submitted on this link moments before is still being checked; this one was not.
   */
  result: 'updated' | 'declined' | 'three_ds' | 'processing' | 'used';
  /** three_ds: our own 3DS page (a relative path). */
  redirectUrl?: string;
  failReason?: string;
  view: CardPageView;
}

export async function getCardPage(ctx: Ctx, token: string): Promise<CardPageView> {
  return viewOf(ctx, await openCardLink(ctx, token), token);
}

async function viewOf(ctx: Ctx, s: SubscriptionRow, token: string): Promise<CardPageView> {
  const merchant = await ctx.store.getMerchant(s.merchantId);
  const plan = await ctx.store.getPlanInfo(s.planId);
  const pending = await ctx.store.pendingRecords(s.id);
  const retry = pending.find((r) => r.billingType === 'RETRY');
  const due = retry ?? pending.find((r) => r.billingType === 'RENEW');
  const card = s.cardId ? await ctx.store.getCard(s.cardId) : undefined;
  return {
    token,
    merchantName: merchant?.name ?? '',
    planName: plan?.name ?? '',
    amount: formatAmount(due?.amount ?? s.amount, s.currency),
    currency: s.currency,
    reason: retry ? 'declined' : 'expiring',
    ...(card ? { last4: card.last4 } : {}),
    ...(merchant?.channel === 'stripe' ? { handOverOrigins: stripeChallengeOrigins() } : {}),
    sandbox: merchant?.channel !== 'stripe',
  };
}

/**
 * A card entered on the page: the same check as the API (zero-amount, customer-present, 3DS when
 * the card asks). A card failing the local checks is shown again with the reason, as on checkout.
 */
export async function submitCardPage(ctx: Ctx, token: string, input: PageCard): Promise<CardPageOutcome> {
  const s = await openCardLink(ctx, token);
  const view = await viewOf(ctx, s, token);
  let card: ValidCard;
  try {
    card = validatePageCard(ctx, input);
  } catch (e) {
    if (isPaygateError(e)) return { result: 'declined', failReason: e.message, view };
    throw e;
  }
  let r: CardUpdateResult;
  try {
    r = await replaceCard(ctx, s.merchantId, s.id, card, { viaLink: token });
  } catch (e) {
    if (!(e instanceof CardLinkInUse)) throw e;
    if (e.threeDsUrl) return { result: 'three_ds', redirectUrl: new URL(e.threeDsUrl).pathname, view };
    return { result: 'used', view };
  }
  if (r.status === String(STATUS.SUCCEEDED)) return { result: 'updated', view };
  if (r.status === String(STATUS.REQUIRES_3DS) && r.url)
    return { result: 'three_ds', redirectUrl: new URL(r.url).pathname, view };
  if (r.status === String(STATUS.ACCEPTED)) return { result: 'processing', view };
  return { result: 'declined', ...(r.failReason ? { failReason: r.failReason } : {}), view };
}
