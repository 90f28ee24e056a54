import type { Ctx } from '../../ctx.js';
import { notFound } from '../../domain/errors.js';
import { randomToken } from '../../domain/ids.js';
import type { SubscriptionRow, Tx } from '../../store/store.js';
import { cardExpired } from '../../vault/card.js';
import { CARD_LINK_MAX_CHECKS, CARD_LINK_TTL_MS } from './rules.js';

/**
 * The updateCardUrl of a RENEW_FAILED callback, INSIDE the unit of work that records the failure:
 * the subscription's live link if it has one (every retry's callback names the same page), else
 * a new one valid for 7 days — also when the live one has used up its card checks, so each
 * failed renewal gives the subscriber another few tries, never an unlimited number.
 */
export async function cardUpdateUrl(ctx: Ctx, tx: Tx, s: SubscriptionRow, now: number): Promise<string> {
  let token = s.cardUpdateToken;
  if (token === null || (s.cardUpdateExpiresAt ?? 0) <= now || linkUsedUp(s)) {
    token = randomToken(24);
    await tx.setCardUpdateToken(s.id, token, now + CARD_LINK_TTL_MS);
  }
  return `${ctx.config.publicUrl}/card/${token}`;
}

/**
 * The subscription behind a card-update link while the link works: the subscription is ACTIVE
 * and either retrying (a RETRY record waits) or warned that its card expires before the next
 * renewal (SPEC §17's card-expiring email: the card on file will have expired by the PENDING
 * RENEW), the 7 days have not run out, and it has not had its three card checks. Otherwise 1007
 * — used, paid by a retry, card already replaced, ended, paused, expired or used up all look
 * alike to the person holding the link.
 */
export async function openCardLink(ctx: Ctx, token: string): Promise<SubscriptionRow> {
  const s = token !== '' ? await ctx.store.getSubscriptionByCardToken(token) : undefined;
  if (s?.status !== 'ACTIVE' || (s.cardUpdateExpiresAt ?? 0) <= ctx.clock.now()) throw notFound('page');
  if ((await ctx.store.getMerchant(s.merchantId))?.status !== 'ACTIVE') throw notFound('page');
  if (!(await linkReason(ctx, s))) throw notFound('page');
  if (linkUsedUp(s)) throw notFound('page');
  return s;
}

/** Whether the subscription's current link has had all the card checks it allows. */
export function linkUsedUp(s: SubscriptionRow): boolean {
  return s.cardUpdateToken !== null && s.cardUpdateChecks >= CARD_LINK_MAX_CHECKS;
}

/** Why a subscriber may replace the card through a link now: a failed renewal, or a card expiring before the next one. */
export async function linkReason(ctx: Ctx, s: SubscriptionRow): Promise<'declined' | 'expiring' | undefined> {
  const pending = await ctx.store.pendingRecords(s.id);
  if (pending.some((r) => r.billingType === 'RETRY')) return 'declined';
  const renewal = pending.find((r) => r.billingType === 'RENEW');
  const card = s.cardId !== null ? await ctx.store.getCard(s.cardId) : undefined;
  if (renewal && card && cardExpired(card.expMonth, card.expYear, renewal.scheduledTime, ctx.zone)) return 'expiring';
  return undefined;
}
