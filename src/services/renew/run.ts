import { hostname } from 'node:os';
import type { Ctx } from '../../ctx.js';
import { randomToken } from '../../domain/ids.js';
import type { ClaimedRecord, DueCursor } from '../../store/store.js';
import { claimNextBatch } from './claim.js';
import { chargeRecord, type ChargeOutcome } from './charge.js';
import type { RecordedAs } from './record.js';
import { recordOutcomes, type Answered } from './record-batch.js';
import { countDue, dueItems, type DueItem } from './due.js';
import { deliverCallbacks, expirePages, resumeChanges, resumeRefunds } from './hooks.js';

/** SPEC §7 `--json` summary. */
export interface RenewSummary {
  due: number;
  succeeded: number;
  failed: number;
  retriesScheduled: number;
  subscriptionsFailed: number;
  expired: number;
  callbacksDelivered: number;
}

export interface RenewOptions {
  /** List what would be charged; change nothing (no claims, no page expiry, no delivery). */
  dryRun?: boolean;
  /** At most this many records charged in this run. */
  limit?: number;
  /** Lease owner name; default host:pid:random. */
  owner?: string;
  onProgress?: (done: number, total: number) => void;
  /** Checked between batches: the charges under way finish, then the run stops cleanly. */
  shouldStop?: () => boolean;
  /**
   * Deliver pending callbacks after the run (default true). `serve` turns it off: its own
   * delivery loop already sends them continuously.
   */
  deliverCallbacks?: boolean;
}

export interface RenewResult extends RenewSummary {
  /** Dry run only: the records that would be charged. */
  records?: DueItem[];
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
  };
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

  /** Claim the next batch of candidates; undefined when nothing due is left or the run must stop. */
  const claimNext = async (): Promise<ClaimedRecord[] | undefined> => {
    if (fault || summary.due >= limit || (opts.shouldStop?.() ?? false)) return undefined;
    try {
      const batch = await claimNextBatch(
        ctx,
        { cutoff, limit: Math.min(BATCH_SIZE, limit - summary.due), cursor },
        owner,
        ctx.clock.now(),
      );
      if (batch.listed === 0) return undefined;
      cursor = batch.next;
      return batch.claimed;
    } catch (e) {
      // Kept here: the claim may fail while the loop awaits an earlier batch, with no handler yet.
      fault ??= { error: e };
      return [];
    }
  };

  /** Charge a claimed batch and record each outcome; never rejects (a failure is kept in `fault`). */
  const chargeBatch = async (claimed: ClaimedRecord[]): Promise<void> => {
    const now = ctx.clock.now();
    const charged = await Promise.allSettled(claimed.map((rec) => chargeRecord(ctx, rec, now)));
    const answered: Answered[] = [];
    claimed.forEach((rec, i) => {
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
    done += claimed.length;
    opts.onProgress?.(done, Math.max(total, done));
  };

  const running: Promise<void>[] = [];
  let claiming = claimNext();
  for (;;) {
    const claimed = await claiming;
    if (!claimed) break;
    summary.due += claimed.length;
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
  if (opts.deliverCallbacks !== false) summary.callbacksDelivered = await deliverCallbacks(ctx);
  return summary;
}

function count(summary: RenewSummary, r: RecordedAs): void {
  if (r === 'succeeded') summary.succeeded++;
  else if (r === 'already_recorded') return;
  else {
    summary.failed++;
    if (r === 'retry_scheduled') summary.retriesScheduled++;
    if (r === 'subscription_failed') summary.subscriptionsFailed++;
  }
}
