import { cardExpired } from '../../vault/card.js';

/**
 * SPEC §17: the card-expiring email goes 7 days before a renewal that the card on file will not
 * reach. The card counts as expired by the renewal exactly as the renewal itself will judge it
 * (SPEC §6: valid through the last day of its expiry month in the configured zone), so the
 * warning is never sent for a renewal that would go through, nor missed for one that will fail.
 */
export const CARD_EXPIRY_NOTICE_MS = 7 * 86_400_000;

export interface StoredExpiry {
  expMonth: number;
  expYear: number;
}

/** When to warn about the renewal at `renewalAt`, or undefined when the card will still be valid then. */
export function cardExpiryNoticeAt(card: StoredExpiry, renewalAt: number, zone: string): number | undefined {
  if (!cardExpired(card.expMonth, card.expYear, renewalAt, zone)) return undefined;
  return renewalAt - CARD_EXPIRY_NOTICE_MS;
}

/**
 * Whether the warning is due at `now`: from 7 days before the renewal until the renewal itself.
 * A renewal less than 7 days away when first seen (a subscription started, or a card replaced,
 * inside the window) is warned about at once; one already past is not warned about at all.
 */
export function cardExpiryNoticeDue(card: StoredExpiry, renewalAt: number, now: number, zone: string): boolean {
  const at = cardExpiryNoticeAt(card, renewalAt, zone);
  return at !== undefined && now >= at && now < renewalAt;
}
