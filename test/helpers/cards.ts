/**
 * A card expiry year a few years after `now` (the test's clock), so test cards never expire as
 * the calendar moves on. Integration tests pass their fixed clock's start; e2e tests run on the
 * real clock.
 */
export function cardYear(now: number = Date.now(), ahead = 4): string {
  return String(new Date(now).getUTCFullYear() + ahead);
}
