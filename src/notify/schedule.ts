/**
 * SPEC §8 retry schedule. A failed attempt n (1-based) is retried after RETRY_DELAYS_MS[n-1];
 * the attempt after the last delay is the final one (7 attempts in all), then the event is DEAD.
 */
export const RETRY_DELAYS_MS: readonly number[] = [
  60_000, // 1 min
  5 * 60_000, // 5 min
  30 * 60_000, // 30 min
  2 * 3_600_000, // 2 h
  6 * 3_600_000, // 6 h
  24 * 3_600_000, // 24 h
];

/** Total attempts before DEAD: the first one plus one per retry delay. */
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;

/**
 * After failed attempt number `attempts` (1-based) at `now`: when to try again, or undefined when
 * that was the last attempt and the event is DEAD.
 */
export function nextAttemptAt(attempts: number, now: number): number | undefined {
  const delay = RETRY_DELAYS_MS[attempts - 1];
  return delay === undefined ? undefined : now + delay;
}
