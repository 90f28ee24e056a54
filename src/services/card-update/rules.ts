import type { SubscriptionStatus } from '../../domain/subscription-state.js';

/** A card can be replaced while the subscription can still be charged again: ACTIVE (also while a retry waits) or PAUSED. */
export function cardReplaceable(status: SubscriptionStatus | string): boolean {
  return status === 'ACTIVE' || status === 'PAUSED';
}

/** The hosted card-update page lives at most this long after the failure that issued it. */
export const CARD_LINK_TTL_MS = 7 * 24 * 60 * 60_000;
