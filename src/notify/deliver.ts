import { hostname } from 'node:os';
import type { Ctx } from '../ctx.js';
import { randomToken } from '../domain/ids.js';
import type { AttemptOutcome, ClaimedEvent, MerchantRow } from '../store/store.js';
import { currentSecret } from '../vault/secrets.js';
import { DELIVERY_LEASE_MS, NO_TARGET_ERROR } from './claim.js';
import { checkNotifyUrl, literalHostRefusal } from './guard.js';
import { callbackAgent, postJson } from './http-client.js';
import { pause } from './pause.js';
import { MAX_ATTEMPTS, nextAttemptAt } from './schedule.js';
import { signCallback } from './sign.js';

/**
 * Callback delivery (SPEC §8): claim due PENDING events with a lease, POST them signed, record
 * the outcome. Deliveries run concurrently up to `concurrency`, and no merchant may take more than
 * half of the slots, so a slow or hanging receiver (bounded by the request timeout) cannot stall
 * other merchants' callbacks.
 */

export interface DeliverOptions {
  /** The delivery clock (renew --at passes its test clock's time); default ctx.clock.now() at each step. */
  now?: number;
  /** Most events attempted in this call. */
  limit?: number;
  /** Lease owner name; unique per process by default. */
  owner?: string;
  /** Deliveries in flight at once (default 8). */
  concurrency?: number;
  /** Per-request timeout (default 10 s, SPEC §8); tests shorten it. */
  timeoutMs?: number;
}

export interface DeliverSummary {
  delivered: number;
  failed: number;
  dead: number;
}

const DEFAULT_CONCURRENCY = 8;
/** While deliveries are in flight, look for newly due events this often (another merchant's must not wait for a hang). */
const POLL_MS = 200;
/** Undeliverable events marked DEAD per transaction. */
const SWEEP_CHUNK = 2_000;

let processOwner: string | undefined;
function defaultOwner(): string {
  processOwner ??= `${hostname()}:${process.pid}:${randomToken(6)}`;
  return processOwner;
}

export async function deliverDue(ctx: Ctx, opts: DeliverOptions = {}): Promise<DeliverSummary> {
  return runPass(ctx, opts, () => false);
}

async function runPass(ctx: Ctx, opts: DeliverOptions, stopping: () => boolean): Promise<DeliverSummary> {
  const now = (): number => opts.now ?? ctx.clock.now();
  const owner = opts.owner ?? defaultOwner();
  const concurrency = Math.max(1, opts.concurrency ?? DEFAULT_CONCURRENCY);
  const perMerchant = Math.max(1, Math.floor(concurrency / 2));
  const limit = opts.limit ?? Number.POSITIVE_INFINITY;
  const summary: DeliverSummary = { delivered: 0, failed: 0, dead: 0 };
  const inFlight = new Map<string, number>();
  const running = new Set<Promise<void>>();
  const merchants = merchantCache(ctx);
  let started = 0;
  let failure: { error: unknown } | undefined;

  // Events with nowhere to go die in bulk first, in short transactions so requests are not held up.
  while (!stopping() && started < limit) {
    const chunk = Math.min(SWEEP_CHUNK, limit - started);
    const at = now();
    const n = await ctx.store.transaction((tx) => tx.sweepUnaddressed(at, ctx.clock.wall(), chunk, NO_TARGET_ERROR));
    summary.dead += n;
    started += n;
    if (n < chunk) break;
  }

  const start = (ev: ClaimedEvent): void => {
    inFlight.set(ev.merchantId, (inFlight.get(ev.merchantId) ?? 0) + 1);
    const p = deliverOne(ctx, ev, owner, now, merchants, opts.timeoutMs)
      .then(
        (status) => {
          if (status === 'DELIVERED') summary.delivered++;
          else if (status === 'DEAD') summary.dead++;
          else if (status === 'PENDING') summary.failed++;
        },
        // Recording the outcome failed (database locked, …): the lease runs out and the event is retried.
        (e: unknown) => {
          failure ??= { error: e };
        },
      )
      .finally(() => {
        running.delete(p);
        const n = (inFlight.get(ev.merchantId) ?? 1) - 1;
        if (n <= 0) inFlight.delete(ev.merchantId);
        else inFlight.set(ev.merchantId, n);
      });
    running.add(p);
  };

  for (;;) {
    const free = Math.min(concurrency - running.size, limit - started);
    const hadInFlight = running.size > 0;
    let claimed: ClaimedEvent[] = [];
    if (free > 0 && !stopping() && !failure) {
      const at = now();
      // Due on the delivery clock; the lease on real time, shared with every other deliverer.
      const wall = ctx.clock.wall();
      try {
        const claim = {
          now: at,
          owner,
          leaseNow: wall,
          leaseUntil: wall + DELIVERY_LEASE_MS,
          max: free,
          perMerchant,
          inFlight,
        };
        claimed = await ctx.store.transaction((tx) => tx.claimDueEvents(claim));
      } catch (e) {
        failure = { error: e }; // stop claiming, let the deliveries in flight finish, then report
      }
      for (const ev of claimed) start(ev);
      started += claimed.length;
    }
    if (running.size === 0 && claimed.length === 0) {
      // A delivery that finished while this claim ran may have unblocked the next event of its
      // subscription, which the claim could not yet see: look once more before ending the pass.
      if (!hadInFlight) break;
      continue;
    }
    // Fewer claimed than asked for means nothing else is claimable now (the rest is blocked,
    // leased, or of a merchant at its share): claiming again at once would only rescan the
    // queue. Wait for a slot (or a finished event that unblocks its successor), polling for new work.
    if (claimed.length < free || running.size >= concurrency) {
      await Promise.race([...running, pause(POLL_MS)]);
    }
  }
  if (failure) throw failure.error;
  return summary;
}

type Outcome = AttemptOutcome['status'] | 'LOST';

async function deliverOne(
  ctx: Ctx,
  ev: ClaimedEvent,
  owner: string,
  now: () => number,
  merchants: (id: string) => Promise<{ row: MerchantRow; secret: string } | undefined>,
  timeoutMs: number | undefined,
): Promise<Outcome> {
  const finish = async (o: Omit<AttemptOutcome, 'now'>): Promise<Outcome> => {
    const at = now();
    const ok = await ctx.store.transaction((tx) => tx.finishAttempt(ev.id, owner, { ...o, now: at }));
    return ok ? o.status : 'LOST';
  };
  const dead = (reason: string): Promise<Outcome> =>
    finish({ status: 'DEAD', attempts: ev.attempts, nextAttemptAt: null, httpStatus: null, error: reason });

  const found = await merchants(ev.merchantId);
  if (!found) return dead('merchant not found');
  const merchant = found.row;
  const target = ev.notifyUrl ?? merchant.notifyUrl;
  if (!target) return dead(NO_TARGET_ERROR);
  const checked = checkNotifyUrl(target);
  if (!checked.ok) return dead(checked.reason);
  const mode = ctx.config.callbackPrivate;
  // A literal address the policy refuses: an attempt that sends nothing and would fail the same
  // way every time, so the event is DEAD at once. A name resolving to a refused address is
  // stopped by the connector, an ordinary failed attempt that is retried (DNS answers change).
  const refused = literalHostRefusal(checked.url, mode);
  if (refused)
    return finish({
      status: 'DEAD',
      attempts: ev.attempts + 1,
      nextAttemptAt: null,
      httpStatus: null,
      error: `refused: notifyUrl ${refused}`,
    });

  let signed: { body: string; headers: Record<string, string> };
  try {
    // The signature's timestamp is transport time, checked by the receiver against its own
    // clock: always the real time, even when business times follow a test clock (renew --at).
    signed = signCallback(ev.payload, {
      version: merchant.signatureVersion,
      secret: found.secret,
      url: checked.url,
      nowMs: Date.now(),
    });
  } catch {
    return dead('stored payload could not be signed');
  }
  const result = await postJson(
    checked.url,
    signed.body,
    { ...signed.headers, 'x-paygate-event-id': ev.id },
    {
      dispatcher: await callbackAgent(mode),
      ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    },
  );
  const attempts = ev.attempts + 1;
  if (result.ok)
    return finish({ status: 'DELIVERED', attempts, nextAttemptAt: null, httpStatus: result.status, error: null });
  const next = nextAttemptAt(attempts, now());
  return finish({
    status: next === undefined ? 'DEAD' : 'PENDING',
    attempts,
    nextAttemptAt: next ?? null,
    httpStatus: result.status ?? null,
    error: next === undefined ? `${result.error} (gave up after ${MAX_ATTEMPTS} attempts)` : result.error,
  });
}

/** Merchant rows and decrypted secrets, re-read after a few seconds so updates and rotations take effect in a long pass. */
const MERCHANT_TTL_MS = 5_000;
function merchantCache(ctx: Ctx): (id: string) => Promise<{ row: MerchantRow; secret: string } | undefined> {
  const cache = new Map<string, { value: { row: MerchantRow; secret: string } | undefined; at: number }>();
  return async (id) => {
    const hit = cache.get(id);
    if (hit && Date.now() - hit.at < MERCHANT_TTL_MS) return hit.value;
    const row = await ctx.store.getMerchant(id);
    const value = row ? { row, secret: currentSecret(ctx.vault, row) } : undefined;
    cache.set(id, { value, at: Date.now() });
    return value;
  };
}

export interface DeliveryLoop {
  /** Stop claiming; resolves when the deliveries in flight have finished. */
  stop(): Promise<void>;
}

/**
 * Continuous delivery for `serve`: a pass, then a pause of `intervalMs`, forever. A pass keeps
 * claiming newly due events while earlier ones are in flight, so new callbacks do not wait for
 * a slow receiver. Errors of a pass (a locked database, …) are reported and the loop goes on.
 */
export function startDeliveryLoop(
  ctx: Ctx,
  opts: { intervalMs?: number; concurrency?: number; timeoutMs?: number; onError?: (e: unknown) => void } = {},
): DeliveryLoop {
  const intervalMs = opts.intervalMs ?? 1000;
  const halt = new AbortController();
  const passOpts: DeliverOptions = {
    concurrency: opts.concurrency ?? 4,
    ...(opts.timeoutMs !== undefined ? { timeoutMs: opts.timeoutMs } : {}),
  };
  const done = (async () => {
    while (!halt.signal.aborted) {
      try {
        await runPass(ctx, passOpts, () => halt.signal.aborted);
      } catch (e) {
        opts.onError?.(e);
      }
      await pause(intervalMs, halt.signal);
    }
  })();
  return {
    async stop() {
      halt.abort();
      await done;
    },
  };
}
