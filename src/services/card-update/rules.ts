import type { SubscriptionStatus } from '../../domain/subscription-state.js';

/** A card can be replaced while the subscription can still be charged again: ACTIVE (also while a retry waits) or PAUSED. */
export function cardReplaceable(status: SubscriptionStatus | string): boolean {
  return status === 'ACTIVE' || status === 'PAUSED';
}

/** The hosted card-update page lives at most this long after the failure that issued it. */
export const CARD_LINK_TTL_MS = 7 * 24 * 60 * 60_000;

/**
 * Card checks one card-update link allows, as the third decline ends a checkout: a link must not
 * become a free card-testing form for whoever holds it. They are counted per link (a new link
 * starts at none), never by time: the run that issued the link and the serve that checks the
 * cards may keep different clocks (`renew --at`, a host running ahead). A check that succeeds
 * ends the link, so in effect three checks may fail; one still under way counts.
 */
export const CARD_LINK_MAX_CHECKS = 3;
