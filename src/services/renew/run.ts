import { hostname } from 'node:os';
import type { Ctx } from '../../app.js';
import { randomToken } from '../../domain/ids.js';
import { dueRecordIds, START_CURSOR, type DueCursor } from '../../store/renewals.js';
import { claimBatch } from './claim.js';
import { chargeRecord } from './charge.js';
import { recordOutcome, type RecordedAs } from './record.js';
import { countDue, dueItems, type DueItem } from './due.js';
import { deliverCallbacks, expirePages } from './hooks.js';

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
 * One renewal run (SPEC §7): expire abandoned 3DS/checkout pages, charge every due PENDING
 * RENEW/RETRY record exactly once, then deliver pending callbacks. Declines are results; an
 * exception means the run could not complete (records it claimed are retaken after the lease).
 */
export async function runRenewal(ctx: Ctx, opts: RenewOptions = {}): Promise<RenewResult> {
  const summary: RenewSummary = { due: 0, succeeded: 0, failed: 0, retriesScheduled: 0, subscriptionsFailed: 0, expired: 0, callbacksDelivered: 0 };
  const cutoff = ctx.clock.now();
  const limit = opts.limit ?? Number.POSITIVE_INFINITY;
  if (opts.dryRun) {
    const records = dueItems(ctx, cutoff, limit);
    return { ...summary, due: records.length, records };
  }
  summary.expired = expirePages(ctx);
  const owner = opts.owner ?? `${hostname()}:${process.pid}:${randomToken(6)}`;
  const total = Math.min(countDue(ctx, cutoff), limit);
  let cursor: DueCursor = START_CURSOR;
  let done = 0;
  while (summary.due < limit && !(opts.shouldStop?.() ?? false)) {
    const candidates = dueRecordIds(ctx.sqlite, cutoff, Math.min(BATCH_SIZE, limit - summary.due), cursor);
    const last = candidates[candidates.length - 1];
    if (!last) break;
    cursor = { afterTime: last.scheduledTime, afterRowid: last.rowid };
    const now = ctx.clock.now();
    const claimed = await claimBatch(ctx, candidates.map((c) => c.id), owner, now);
    summary.due += claimed.length;
    const settled = await Promise.allSettled(
      claimed.map(async (rec) => {
        const outcome = await chargeRecord(ctx, rec, now);
        return ctx.writer.transaction(() => recordOutcome(ctx, rec, outcome, ctx.clock.now()));
      }),
    );
    for (const s of settled) {
      if (s.status === 'fulfilled') count(summary, s.value);
    }
    const fault = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (fault) throw fault.reason;
    done += claimed.length;
    opts.onProgress?.(done, Math.max(total, done));
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
