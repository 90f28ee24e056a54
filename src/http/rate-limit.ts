/**
 * Sliding 60-second windows (SPEC §5): per key, the instants of the requests counted in the
 * last 60 s. A request is refused when the window already holds `limit` of them; refused
 * requests are not counted, so a client that backs off gets its budget back on time.
 */
export const WINDOW_MS = 60_000;

export type HitResult = { ok: true } | { ok: false; retryAfter: number };

export interface RateLimiter {
  hit(key: string, limit: number, now: number): HitResult | Promise<HitResult>;
  /** Drop windows that hold nothing recent (called by a timer so idle keys cost no memory). */
  sweep(now: number): void | Promise<void>;
}

/** The windows an engine keeps in the database, shared by every `serve` on it. */
export interface SharedRateCounter {
  countRateHit(key: string, limit: number, now: number): Promise<HitResult>;
  sweepRateHits(now: number): Promise<void>;
}

/**
 * The limiter of a server database (PostgreSQL): every hit is one statement that counts and
 * records it, so a merchant's budget holds across all instances. Same windows, same answers
 * (retryAfter included) as the in-memory limiter.
 */
export function createSharedRateLimiter(enabled: boolean, counter: SharedRateCounter): RateLimiter {
  return {
    hit(key, limit, now) {
      if (!enabled) return { ok: true };
      return counter.countRateHit(key, limit, now);
    },
    async sweep(now) {
      if (enabled) await counter.sweepRateHits(now);
    },
  };
}

export function createRateLimiter(enabled: boolean): RateLimiter {
  const windows = new Map<string, number[]>();
  return {
    hit(key, limit, now) {
      if (!enabled) return { ok: true };
      let times = windows.get(key);
      if (!times) {
        times = [];
        windows.set(key, times);
      }
      const cutoff = now - WINDOW_MS;
      let drop = 0;
      while (drop < times.length && (times[drop] ?? 0) <= cutoff) drop++;
      if (drop > 0) times.splice(0, drop);
      if (times.length >= limit) {
        const oldest = times[0] ?? now;
        return { ok: false, retryAfter: Math.max(1, Math.ceil((oldest + WINDOW_MS - now) / 1000)) };
      }
      times.push(now);
      return { ok: true };
    },
    sweep(now) {
      for (const [key, times] of windows) {
        const last = times[times.length - 1];
        if (last === undefined || last <= now - WINDOW_MS) windows.delete(key);
      }
    },
  };
}
