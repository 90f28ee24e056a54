import type { Ctx } from '../../ctx.js';
import { isPaygateError, notAllowed, notFound } from '../../domain/errors.js';
import { portalActionsOf, type PortalAction } from '../../domain/portal-actions.js';
import { formatTime } from '../../domain/time.js';
import type { SubscriptionRow } from '../../store/store.js';
import type { ValidCard } from '../../vault/card.js';
import { replaceCard, type CardUpdateResult } from '../card-update/check.js';
import { validatePageCard, type PageCard } from '../pages.js';
import { cancelSubscription, pauseSubscription, periodEnd, resumeSubscription } from '../subscriptions/index.js';
import { STATUS } from '../transactions/status.js';
import { cardReturnUrl } from './card-return.js';
import type { OpenPortal } from './session.js';

/**
 * The subscription a portal form names, if it is this link's user's at this link's merchant:
 * any other id — another user's, another merchant's, unknown — is the same 1007.
 */
export async function ownSubscription(ctx: Ctx, portal: OpenPortal, subscriptionId: unknown): Promise<SubscriptionRow> {
  const id = typeof subscriptionId === 'string' ? subscriptionId : '';
  const s = id !== '' ? await ctx.store.getSubscription(portal.merchant.id, id) : undefined;
  if (!s || s.userId !== portal.session.userId) throw notFound('subscription');
  return s;
}

/** An action the merchant has not allowed on its portal: 1008, whatever the form says. */
export function requireAllowed(portal: OpenPortal, action: PortalAction): void {
  if (!portalActionsOf(portal.merchant.portalActions).has(action))
    throw notAllowed(`${portal.merchant.name} does not offer this on its portal`);
}

/** The confirmation step of a cancel: when the subscription would end if cancelled now. */
export function cancelEndTime(ctx: Ctx, s: SubscriptionRow): string {
  return formatTime(periodEnd(s, ctx.clock.now()), ctx.zone);
}

/** Cancel, pause and resume: the API's own services, so the same rules, states and callbacks. */
export async function transition(
  ctx: Ctx,
  portal: OpenPortal,
  s: SubscriptionRow,
  action: 'cancel' | 'pause' | 'resume',
): Promise<void> {
  requireAllowed(portal, action);
  const fn = { cancel: cancelSubscription, pause: pauseSubscription, resume: resumeSubscription }[action];
  await fn(ctx, portal.merchant.id, s.id);
}

/**
 * Cards one portal link may have checked through the channel, as the card-update link's three:
 * whoever holds a link must not get a card-testing form out of it. A new link starts afresh.
 */
export const PORTAL_CARD_CHECKS = 5;

export type PortalCardOutcome =
  | { result: 'updated' | 'processing'; card?: string }
  | { result: 'three_ds'; redirectUrl: string }
  | { result: 'declined'; failReason: string };

/**
 * A new card from the portal's form: the same check as POST /subscription/card/update (zero
 * amount, customer present, 3-D Secure or Stripe's hand-over when the card asks), returning to
 * the portal after a challenge (through `token`'s sealed return route, which says how it went).
 */
export async function cardFromPortal(
  ctx: Ctx,
  portal: OpenPortal,
  s: SubscriptionRow,
  input: PageCard,
  token: string,
): Promise<PortalCardOutcome> {
  requireAllowed(portal, 'update-card');
  let card: ValidCard;
  try {
    card = validatePageCard(ctx, input);
  } catch (e) {
    if (isPaygateError(e)) return { result: 'declined', failReason: e.message };
    throw e;
  }
  const counted = await ctx.store.transaction((tx) =>
    tx.countPortalCardCheck(portal.session.tokenHash, PORTAL_CARD_CHECKS),
  );
  if (!counted) return { result: 'declined', failReason: 'too many cards were tried on this link' };
  // Never the portal's own URL: the row would hold the token in plain text (card-return.ts).
  const returnUrl = (transactionId: string) => cardReturnUrl(ctx, token, transactionId);
  const r: CardUpdateResult = await replaceCard(ctx, portal.merchant.id, s.id, card, { returnUrl });
  if (r.status === String(STATUS.SUCCEEDED)) return { result: 'updated', ...(r.card ? { card: r.card } : {}) };
  if (r.status === String(STATUS.REQUIRES_3DS) && r.url)
    return { result: 'three_ds', redirectUrl: new URL(r.url).pathname };
  if (r.status === String(STATUS.ACCEPTED)) return { result: 'processing' };
  return { result: 'declined', failReason: r.failReason ?? 'declined' };
}
