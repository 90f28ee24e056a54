/**
 * Faults the stand-in injects into the requests that match, for the next `times` of them.
 *
 * - `timeout`: the request is carried out (the charge is made, the idempotent result stored),
 *   then the answer is held: never sent (until close), or sent after `afterMs`, when a client
 *   with a shorter timeout has given up.
 * - `server_error`: a 500 with Stripe's api_error body. `executed: false` (default): nothing was
 *   done and nothing stored. `executed: true`: the request was carried out and, as Stripe
 *   documents for its idempotency layer, the 500 is the stored result replayed to the same key.
 * - `rate_limit`: a 429 with Stripe's rate-limit body; nothing done, nothing stored. `retryAfter`
 *   (seconds) adds a Retry-After header, `shouldRetry` a Stripe-Should-Retry header.
 * - `processing`: a charge that would succeed leaves its intent `processing` until
 *   `settleIntent` (no event until then).
 * - `webhook_twice`: every event the request causes is delivered twice.
 * - `webhook_first`: the events the request causes are delivered before the API answers.
 * - `before`: `run` is awaited just before the request is carried out: something else happens at
 *   Stripe at that instant (a shopper finishing a challenge as paygate cancels it).
 */
export type Fault =
  | { kind: 'timeout'; afterMs?: number }
  | { kind: 'server_error'; executed?: boolean }
  | { kind: 'rate_limit'; retryAfter?: number; shouldRetry?: boolean }
  | { kind: 'processing' }
  | { kind: 'webhook_twice' }
  | { kind: 'webhook_first' }
  | { kind: 'before'; run: () => void | Promise<void> };

export interface FaultMatch {
  method?: 'GET' | 'POST';
  /** Exact path, or a pattern, e.g. /^\/v1\/payment_intents$/ */
  path?: string | RegExp;
  idempotencyKey?: string;
}

interface Armed {
  fault: Fault;
  match: FaultMatch;
  left: number;
}

export interface RequestInfo {
  method: string;
  path: string;
  idempotencyKey: string | null;
}

function matches(m: FaultMatch, r: RequestInfo): boolean {
  if (m.method && m.method !== r.method) return false;
  if (m.path !== undefined && !(typeof m.path === 'string' ? m.path === r.path : m.path.test(r.path))) return false;
  if (m.idempotencyKey !== undefined && m.idempotencyKey !== r.idempotencyKey) return false;
  return true;
}

export class Faults {
  private armed: Armed[] = [];

  /** Arm a fault for the next `times` matching API requests (default: the next one). */
  inject(fault: Fault, opts: { match?: FaultMatch; times?: number } = {}): void {
    this.armed.push({ fault, match: opts.match ?? {}, left: opts.times ?? 1 });
  }

  clear(): void {
    this.armed = [];
  }

  /** The faults that apply to this request, each consumed once. */
  take(r: RequestInfo): Fault[] {
    const hit: Fault[] = [];
    for (const a of this.armed) {
      if (a.left > 0 && matches(a.match, r)) {
        a.left -= 1;
        hit.push(a.fault);
      }
    }
    this.armed = this.armed.filter((a) => a.left > 0);
    return hit;
  }
}
