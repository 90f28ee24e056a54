import { hostname } from 'node:os';
import type { Ctx } from '../../ctx.js';
import { ConnectionLostError, isPaygateError } from '../../domain/errors.js';
import { randomToken } from '../../domain/ids.js';
import type { ClaimedRecord, DueCursor } from '../../store/store.js';

/** A claimed record, the run's time of its claim, and until when its charge may wait out 429s (wall clock). */
interface Claimed {
  rec: ClaimedRecord;
  at: number;
  retryUntil: number;
}
import { type CallScope, type CallTally, withCallScope } from '../../channel/call-scope.js';
import { claimNextBatch, LEASE_MS } from './claim.js';
import { chargeRecord, type ChargeOutcome } from './charge.js';
import type { RecordedAs } from './record.js';
import { recordOutcomes, type Answered } from './record-batch.js';
import { countDue, dueItems, type DueItem } from './due.js';
import { deliverCallbacks, deliverEmails, expirePages, resumeChanges, resumeRefunds, warnCards } from './hooks.js';

/** SPEC §7 `--json` summary. */
export interface RenewSummary {
  due: number;
  succeeded: number;
  failed: number;
  retriesScheduled: number;
  subscriptionsFailed: number;
  expired: number;
  callbacksDelivered: number;
  /** Customer emails sent after the run (SPEC §17); 0 where serve's own loop sends them. */
  emailsSent: number;
  /** HTTP calls this run sent to Stripe (re-sent ones included), and how many were answered 429. */
  stripeCalls: number;
  stripeRateLimited: number;
}

/** How the run is going, for a progress display. */
export interface RenewProgress {
  done: number;
  total: number;
  stripeCalls: number;
  stripeRateLimited: number;
  /** Wall-clock ms since the run started. */
  elapsedMs: number;
}

export interface RenewOptions {
  /** List what would be charged; change nothing (no claims, no page expiry, no delivery). */
  dryRun?: boolean;
  /** At most this many records charged in this run. */
  limit?: number;
  /** Lease owner name; default host:pid:random. */
  owner?: string;
  onProgress?: (p: RenewProgress) => void;
  /** Checked between batches: the charges under way finish, then the run stops cleanly. */
  shouldStop?: () => boolean;
  /**
   * Deliver pending callbacks and customer emails after the run (default true). `serve` turns
   * it off: its own delivery loops already send them continuously.
   */
  deliverCallbacks?: boolean;
}

export interface RenewResult extends RenewSummary {
  /** Dry run only: the records that would be charged. */
  records?: DueItem[];
  /**
   * Present when `shouldStop` ended the run before it had claimed everything due: the summary
   * counts only what it did, and the records it did not reach stay due for the next run.
   */
  interrupted?: true;
}

/**
 * Records per batch: claimed in one write transaction, charged concurrently (the channel's and
 * the results' writes then share group commits), so memory stays bounded whatever is due.
 */
export const BATCH_SIZE = 256;

/**
 * Batches under way at once. Two overlap so that one batch's results, the next batch's channel
 * writes and the claim of the one after share a single group commit (one commit per batch, as a
 * hand-written loop would have), instead of a commit for each step.
 */
const BATCHES_IN_FLIGHT = 2;

/**
 * One renewal run (SPEC §7): expire abandoned 3DS/checkout pages, re-drive refunds a failed
 * channel call left PENDING, finish plan changes whose request died mid-way, charge every due
 * PENDING RENEW/RETRY record exactly once, then
 * deliver pending callbacks. Declines are results; an exception means the run could not
 * complete: the records it still held are released for the next run (or, if even that fails,
 * retaken after the lease).
 */
export async function runRenewal(ctx: Ctx, opts: RenewOptions = {}): Promise<RenewResult> {
  const summary: RenewSummary = {
    due: 0,
    succeeded: 0,
    failed: 0,
    retriesScheduled: 0,
    subscriptionsFailed: 0,
    expired: 0,
    callbacksDelivered: 0,
    emailsSent: 0,
    stripeCalls: 0,
    stripeRateLimited: 0,
  };
  const tally: CallTally = { calls: 0, rateLimited: 0 };
  const started = Date.now();
  // Background work: kept off the customer-present share of each Stripe budget. Housekeeping's
  // 429s are retried for a while; each batch's charges until shortly before its lease ends.
  const scope = (retryUntil: number) => ({ background: true, retryUntil, tally });
  // The scope is read by Stripe calls only, and entering one is not free on Node 20: from then on
  // the process hooks every promise it makes (BENCHMARKS.md: sandbox runs up to 13% faster
  // without; in `serve`, every request after the first run paid it too). So a run enters none
  // while no merchant holds a Stripe key; a Stripe card's charge below enters its own in any case.
  const run = () => renewal(ctx, opts, summary, tally, started, scope);
  try {
    return (await ctx.store.anyStripeMerchant())
      ? await withCallScope(scope(started + HOUSEKEEPING_RETRY_MS), run)
      : await run();
  } catch (e) {
    throw opts.dryRun || isPaygateError(e) ? e : stoppedRun(e, summary);
  } finally {
    summary.stripeCalls = tally.calls;
    summary.stripeRateLimited = tally.rateLimited;
  }
}

/**
 * A fault stopped the run part-way (SPEC §7: it exits non-zero). Each unit of work it finished
 * before is committed and stays, so the fault's own words must not stand for the run: a lost
 * PostgreSQL connection says "nothing was written" of its one unit while thousands of renewals
 * may be recorded. Say the run stopped, that what it did is kept, and that a next run (the same
 * idempotency keys, its claims released or their leases ended) finishes it without charging twice.
 */
export class RenewalStopped extends Error {}

function stoppedRun(e: unknown, s: RenewSummary): RenewalStopped {
  const lost = connectionLost(e);
  const why =
    lost?.committed === false
      ? 'the database connection was lost'
      : ((lost ?? (e instanceof Error ? e : undefined))?.message ?? String(e));
  return new RenewalStopped(
    `the renewal run stopped: ${why}. What it did before is kept (${s.succeeded} renewals charged, ${s.failed} declined); run renew again to finish the rest (a record it still held waits for its lease, at most ${LEASE_MS / 60_000} minutes): nothing is charged twice`,
    { cause: e },
  );
}

function connectionLost(e: unknown): ConnectionLostError | undefined {
  for (let cur = e, depth = 0; cur instanceof Error && depth < 10; cur = cur.cause, depth++)
    if (cur instanceof ConnectionLostError) return cur;
  return undefined;
}

/** Stripe charges of one run under way at once: twice the calls an account takes at once. */
const STRIPE_CHARGES_AT_ONCE = 32;

/** At most `n` of the functions given run at once; the others wait their turn, in order. */
function turns(n: number): <T>(fn: () => Promise<T>) => Promise<T> {
  let running = 0;
  const waiting: Array<() => void> = [];
  return async (fn) => {
    // A finishing call hands its turn straight to the next waiting one.
    if (running >= n) await new Promise<void>((r) => waiting.push(r));
    else running++;
    try {
      return await fn();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else running--;
    }
  };
}

/** Housekeeping (refunds, plan changes, abandoned pages) waits out a 429 at most this long per call. */
const HOUSEKEEPING_RETRY_MS = 60_000;
/** A batch's charges stop waiting out 429s this long before its lease ends, to record in time. */
const LEASE_MARGIN_MS = 60_000;

async function renewal(
  ctx: Ctx,
  opts: RenewOptions,
  summary: RenewSummary,
  tally: CallTally,
  started: number,
  scope: (retryUntil: number) => CallScope,
): Promise<RenewResult> {
  const cutoff = ctx.clock.now();
  const limit = opts.limit ?? Number.POSITIVE_INFINITY;
  if (opts.dryRun) {
    const records = await dueItems(ctx, cutoff, limit);
    return { ...summary, due: records.length, records };
  }
  summary.expired = await expirePages(ctx);
  await resumeRefunds(ctx);
  await resumeChanges(ctx);
  const owner = opts.owner ?? `${hostname()}:${process.pid}:${randomToken(6)}`;
  const total = Math.min(await countDue(ctx, cutoff), limit);
  let cursor: DueCursor = null;
  let done = 0;
  let fault: { error: unknown } | undefined;
  let stopped = false;

  /** Claim the next batch of candidates; undefined when nothing due is left or the run must stop. */
  const claimNext = async (): Promise<Claimed[] | undefined> => {
    if (fault || summary.due >= limit) return undefined;
    if (opts.shouldStop?.()) {
      stopped = true;
      return undefined;
    }
    try {
      const at = ctx.clock.now();
      const wallAt = Date.now();
      const batch = await claimNextBatch(
        ctx,
        { cutoff, limit: Math.min(BATCH_SIZE, limit - summary.due), cursor },
        owner,
        at,
      );
      if (batch.listed === 0) return undefined;
      cursor = batch.next;
      return batch.claimed.map((rec) => ({ rec, at, retryUntil: wallAt + LEASE_MS - LEASE_MARGIN_MS }));
    } catch (e) {
      // Kept here: the claim may fail while the loop awaits an earlier batch, with no handler yet.
      fault ??= { error: e };
      return [];
    }
  };

  /** Charge a claimed batch and record each outcome; never rejects (a failure is kept in `fault`). */
  // Stripe takes a few calls at once per account anyway: a batch's Stripe charges start a few at a
  // time, so their reads do not queue hundreds deep for the database's connections while waiting.
  const stripeTurn = turns(STRIPE_CHARGES_AT_ONCE);
  const progress = () =>
    opts.onProgress?.({
      done,
      total: Math.max(total, done),
      stripeCalls: tally.calls,
      stripeRateLimited: tally.rateLimited,
      elapsedMs: Date.now() - started,
    });
  const chargeBatch = async (batch: Claimed[]): Promise<void> => {
    const now = ctx.clock.now();
    const charged = await Promise.allSettled(
      batch.map(({ rec, at, retryUntil }) =>
        (rec.cardChannel === 'stripe'
          ? withCallScope(scope(retryUntil), () => stripeTurn(() => chargeRecord(ctx, rec, now, at)))
          : chargeRecord(ctx, rec, now, at)
        ).finally(() => {
          done++;
          progress();
        }),
      ),
    );
    const answered: Answered[] = [];
    batch.forEach(({ rec }, i) => {
      const c = charged[i] as PromiseSettledResult<ChargeOutcome>;
      if (c.status === 'rejected') fault ??= { error: c.reason };
      // Not known yet: the record stays claimed and a run after its lease asks again (same key).
      else if ('waiting' in c.value) count(summary, 'already_recorded');
      else answered.push({ rec, outcome: c.value });
    });
    for (const s of await recordOutcomes(ctx, answered)) {
      if (s.status === 'fulfilled') count(summary, s.value);
      else fault ??= { error: s.reason };
    }
  };

  const running: Promise<void>[] = [];
  let claiming = claimNext();
  for (;;) {
    const claimed = await claiming;
    if (!claimed) break;
    summary.due += claimed.length;
    // Progress counts charges as they are answered; recording follows each batch.
    // The batch's channel writes are queued first, then the next claim joins their commit.
    running.push(chargeBatch(claimed));
    claiming = claimNext();
    if (running.length >= BATCHES_IN_FLIGHT) await running.shift();
  }
  await Promise.all(running);
  if (fault) {
    // Leave nothing claimed: a later run (or --dry-run) must see these records due at once, not
    // after the lease. Best effort — if the database itself failed, the lease still ends them.
    await ctx.store.transaction((tx) => tx.releaseClaims(owner)).catch(() => 0);
    throw fault.error;
  }
  await warnCards(ctx);
  if (opts.deliverCallbacks !== false) {
    summary.callbacksDelivered = await deliverCallbacks(ctx);
    summary.emailsSent = await deliverEmails(ctx);
  }
  return stopped && summary.due < total ? { ...summary, interrupted: true } : summary;
}

function count(summary: RenewSummary, r: RecordedAs): void {
  if (r === 'succeeded') summary.succeeded++;
  // Nothing charged: a renewal taken over on a subscription cancelled or paused since.
  else if (r === 'already_recorded' || r === 'cancelled') return;
  else {
    summary.failed++;
    if (r === 'retry_scheduled') summary.retriesScheduled++;
    if (r === 'subscription_failed') summary.subscriptionsFailed++;
  }
}
