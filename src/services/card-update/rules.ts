import type { SubscriptionStatus } from '../../domain/subscription-state.js';

/** A card can be replaced while the subscription can still be charged again: ACTIVE (also while a retry waits) or PAUSED. */
export function cardReplaceable(status: SubscriptionStatus | string): boolean {
  return status === 'ACTIVE' || status === 'PAUSED';
}

/** The hosted card-update page lives at most this long after the failure that issued it. */
export const CARD_LINK_TTL_MS = 7 * 24 * 60 * 60_000;

/**
 * Card checks on one card-update link that may fail before the link stops working, as the third
 * decline ends a checkout: a link must not become a free card-testing form for whoever holds it.
 * A check still under way (3-D Secure, the processor deciding) counts until it succeeds.
 */
export const CARD_LINK_MAX_FAILED_CHECKS = 3;

/** When the subscription's current card-update link was issued (its expiry less its lifetime). */
export function cardLinkIssuedAt(expiresAt: number): number {
  return expiresAt - CARD_LINK_TTL_MS;
}
