import { describe, expect, it } from 'vitest';
import { cardExpiryNoticeAt, cardExpiryNoticeDue } from '../../src/notify/email/card-expiring.js';

const DAY = 86_400_000;
const FEB1 = Date.UTC(2026, 1, 1, 9);

describe('the card-expiring email (SPEC §17): 7 days before a renewal the card will not reach', () => {
  it.each([
    ['a card expiring in January, renewal on 1 February', { expMonth: 1, expYear: 2026 }, FEB1 - 7 * DAY],
    ['a card that expired long ago', { expMonth: 6, expYear: 2024 }, FEB1 - 7 * DAY],
  ])('warns for %s', (_name, card, at) => {
    expect(cardExpiryNoticeAt(card, FEB1, 'UTC')).toBe(at);
  });

  it.each([
    ['a card valid through the renewal’s month', { expMonth: 2, expYear: 2026 }],
    ['a card valid for years', { expMonth: 12, expYear: 2030 }],
  ])('does not warn for %s', (_name, card) => {
    expect(cardExpiryNoticeAt(card, FEB1, 'UTC')).toBeUndefined();
  });

  it('judges expiry in the shop’s zone, as the renewal does', () => {
    // 1 Feb 00:30 in Berlin is still 31 Jan in UTC: a January card is expired there, not here.
    const renewal = Date.UTC(2026, 0, 31, 23, 30);
    expect(cardExpiryNoticeAt({ expMonth: 1, expYear: 2026 }, renewal, 'Europe/Berlin')).toBe(renewal - 7 * DAY);
    expect(cardExpiryNoticeAt({ expMonth: 1, expYear: 2026 }, renewal, 'UTC')).toBeUndefined();
  });

  it.each([
    ['8 days before', FEB1 - 8 * DAY, false],
    ['7 days before', FEB1 - 7 * DAY, true],
    ['2 days before (first seen inside the window)', FEB1 - 2 * DAY, true],
    ['at the renewal', FEB1, false],
    ['after the renewal', FEB1 + DAY, false],
  ])('is due %s: %s', (_name, now, due) => {
    expect(cardExpiryNoticeDue({ expMonth: 1, expYear: 2026 }, FEB1, now, 'UTC')).toBe(due);
  });
});
