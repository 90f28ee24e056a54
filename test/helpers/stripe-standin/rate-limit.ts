/**
 * Stripe's basic rate limiter, per account: at most `limit` API operations in each second
 * (25 in test mode, 100 in live mode), beyond which Stripe answers 429 with
 * `Stripe-Rate-Limited-Reason: global-rate`, error type `invalid_request_error` and code
 * `rate_limit`, and no `Retry-After` (Stripe documents none: clients back off themselves).
 *
 * Seconds are wall-clock seconds (not the stand-in's adjustable clock): the limit is about how
 * fast requests arrive, which advancing the stand-in's clock must not change.
 */

/** What one account received in one wall-clock second. */
export interface SecondCount {
  /** Epoch second. */
  second: number;
  /** Requests let through (answered as Stripe would). */
  calls: number;
  /** Requests answered 429 by the limiter. */
  limited: number;
}

export const TEST_MODE_LIMIT = 25;
export const LIVE_MODE_LIMIT = 100;

export class AccountRateLimit {
  private readonly seconds = new Map<number, SecondCount>();

  /** null: no limit (only for tests that measure something else and say so). */
  constructor(public limit: number | null = TEST_MODE_LIMIT) {}

  /** Counts one request arriving now; false when it is over the limit (answer 429). */
  admit(nowMs: number = Date.now()): boolean {
    const second = Math.floor(nowMs / 1000);
    let c = this.seconds.get(second);
    if (!c) {
      c = { second, calls: 0, limited: 0 };
      this.seconds.set(second, c);
    }
    if (this.limit !== null && c.calls >= this.limit) {
      c.limited++;
      return false;
    }
    c.calls++;
    return true;
  }

  /** Every second in which the account received something, in order. */
  perSecond(): SecondCount[] {
    return [...this.seconds.values()].sort((a, b) => a.second - b.second);
  }

  /** Totals since the start (or since `reset()`). */
  totals(): { calls: number; limited: number; busiestSecond: number } {
    let calls = 0;
    let limited = 0;
    let busiestSecond = 0;
    for (const c of this.seconds.values()) {
      calls += c.calls;
      limited += c.limited;
      busiestSecond = Math.max(busiestSecond, c.calls);
    }
    return { calls, limited, busiestSecond };
  }

  reset(): void {
    this.seconds.clear();
  }
}

/** Stripe's headers on a 429 from its rate limiter. */
export const RATE_LIMITED_HEADERS: Record<string, string> = { 'stripe-rate-limited-reason': 'global-rate' };
