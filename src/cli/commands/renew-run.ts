import { Cron } from 'croner';
import type { Ctx } from '../../ctx.js';
import type { FixedClock } from '../../domain/clock.js';
import { invalidParam, isPaygateError } from '../../domain/errors.js';
import { formatTime, parseTime } from '../../domain/time.js';
import { liveMerchantsDueAt, runRenewal, type RenewProgress, type RenewResult } from '../../services/renew/index.js';
import { printError, record, table } from '../output.js';
import type { Output } from '../output.js';
import { progressBar } from '../progress.js';
import { type StopSignal, stopSignal } from '../stop-signal.js';
import type { RenewCliOptions } from './renew.js';

/** What `paygate renew` does once its options are checked and the database is open. */
export async function renew(
  ctx: Ctx,
  out: Output,
  opts: RenewCliOptions,
  limit: number | undefined,
  clock: FixedClock | undefined,
): Promise<void> {
  if (clock && opts.at !== undefined) {
    const at = parseTime(opts.at, ctx.zone, 'at');
    // A future time charges early: refused, before anything is claimed, when a merchant with
    // records due then would be charged real money (SPEC §7).
    if (at > Date.now()) {
      const live = await liveMerchantsDueAt(ctx, at);
      if (live.length > 0)
        throw invalidParam(
          'at',
          `a time in the future would charge ${live.length === 1 ? 'merchant' : 'merchants'} ${live.join(', ')} early with a live Stripe key; only sandbox cards and test-mode keys (sk_test_…, rk_test_…) may be run ahead`,
        );
    }
    clock.set(at);
  }
  const stop = stopSignal();
  try {
    if (opts.every === undefined) {
      printResult(ctx, out, await runOnce(ctx, out, opts, limit, stop.requested));
      return;
    }
    await runEvery(ctx, out, opts.every, opts, limit, stop);
  } finally {
    stop.dispose();
  }
}

async function runOnce(
  ctx: Ctx,
  out: Output,
  opts: RenewCliOptions,
  limit: number | undefined,
  shouldStop: () => boolean,
): Promise<RenewResult> {
  const bar = !out.json && process.stderr.isTTY ? progressBar(process.stderr) : undefined;
  try {
    return await runRenewal(ctx, {
      dryRun: Boolean(opts.dryRun),
      ...(limit !== undefined ? { limit } : {}),
      shouldStop,
      ...(bar ? { onProgress: (p: RenewProgress) => bar.update(p.done, p.total, stripePace(p)) } : {}),
    });
  } finally {
    bar?.done();
  }
}

/**
 * Stripe's pace on the progress line: calls per second so far, how many were answered 429, and
 * the time left at this pace. Nothing when the run has not called Stripe.
 */
export function stripePace(p: RenewProgress): string {
  if (p.stripeCalls === 0) return '';
  const seconds = Math.max(p.elapsedMs, 1) / 1000;
  const rate = p.stripeCalls / seconds;
  const left = p.done > 0 ? Math.ceil(((p.total - p.done) * seconds) / p.done) : undefined;
  return [
    `· Stripe ${rate.toFixed(1)} calls/s`,
    ...(p.stripeRateLimited > 0 ? [`${p.stripeRateLimited} answered 429`] : []),
    ...(left !== undefined ? [`~${left} s left`] : []),
  ].join(' · ');
}

/** Said under the figures of a run a signal stopped, so they do not read as a finished run. */
const INTERRUPTED_NOTE =
  'interrupted: the run stopped before it reached every due record; what it did is kept, and a next run charges the rest';

/** One line per run in JSON (JSON Lines): `--every` and cron's `>> renew.log` append run after run. */
function printResult(ctx: Ctx, out: Output, r: RenewResult): void {
  if (r.records !== undefined) {
    const { records, ...summary } = r;
    out.line(
      { ...summary, dryRun: true, records },
      () =>
        `${table(records, { recordId: 'record', subscriptionCode: 'subscription', billingType: 'type', amount: 'amount', scheduledTime: 'scheduled', retryCount: 'retry' }, { leaveOut: ['retryCount', 'billingType', 'subscriptionCode', 'scheduledTime'] })}\n${records.length} due (dry run: nothing charged)`,
    );
    return;
  }
  const { interrupted, ...summary } = r;
  out.line(r, () =>
    [
      `renewal run at ${formatTime(ctx.clock.now(), ctx.zone)}`,
      record(summary),
      ...(interrupted ? [INTERRUPTED_NOTE] : []),
    ].join('\n'),
  );
}

async function runEvery(
  ctx: Ctx,
  out: Output,
  expr: string,
  opts: RenewCliOptions,
  limit: number | undefined,
  stop: StopSignal,
): Promise<void> {
  let running: Promise<void> = Promise.resolve();
  let job: Cron;
  try {
    job = new Cron(expr, { protect: true }, () => {
      running = runOnce(ctx, out, opts, limit, stop.requested)
        .then((r) => printResult(ctx, out, r))
        // An error line on stderr whatever the output mode (a note is silent under --json): a
        // failed run must leave a trace in the log; the next tick runs again.
        .catch((e: unknown) =>
          printError(
            isPaygateError(e) ? e.code : '9999',
            `renewal run failed: ${e instanceof Error ? e.message : String(e)}`,
          ),
        );
      return running;
    });
  } catch (e) {
    throw invalidParam('every', `not a valid cron expression: ${e instanceof Error ? e.message : String(e)}`);
  }
  const next = job.nextRun();
  if (next === null) {
    // "Stays running" would be a process waiting for ever for nothing (SPEC §7): refused as a bad schedule.
    job.stop();
    throw invalidParam('every', `"${expr}" never runs: no date matches it`);
  }
  out.note(`renewing on "${expr}"; next run ${next.toISOString()}; Ctrl-C to stop`);
  await stop.wait;
  job.stop();
  await running;
}
