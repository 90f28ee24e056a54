import { parseStripeApiUrl, stripeApiUrlFrom } from '../../channel/stripe/client.js';
import type { Command } from 'commander';
import { Cron } from 'croner';
import type { Ctx } from '../../ctx.js';
import { FixedClock } from '../../domain/clock.js';
import { invalidParam } from '../../domain/errors.js';
import { formatTime, parseTime } from '../../domain/time.js';
import { runRenewal, type RenewResult } from '../../services/renew/index.js';
import { record, table } from '../output.js';
import type { Output } from '../output.js';
import { action, UsageError, withCtx } from '../shell.js';
import { progressBar } from '../progress.js';

interface RenewCliOptions {
  at?: string;
  dryRun?: boolean;
  limit?: string;
  every?: string;
}

/**
 * `paygate renew` (SPEC §7). One run and exit, or `--every CRON` to stay running; SIGINT/SIGTERM
 * let the charges under way finish, then exit 0. Exit 0 whenever the run completed (declines are
 * results); a fault that stops the run is non-zero through the shell's one error handler.
 */
export function registerRenewCommands(program: Command): void {
  program
    .command('renew')
    .description('charge due renewals, expire abandoned 3DS/checkout pages, deliver callbacks')
    .option('--at <time>', 'run as if the clock read this "yyyy-MM-dd HH:mm:ss" (test clock)')
    .option('--dry-run', 'list what would be charged; change nothing')
    .option('--limit <n>', 'charge at most N records in this run')
    .option('--every <cron>', 'stay running and run on this cron schedule')
    .action(
      action(async (opts: RenewCliOptions, cmd: Command) => {
        const limit = opts.limit === undefined ? undefined : positiveInt(opts.limit);
        if (opts.every !== undefined && opts.at !== undefined)
          throw new UsageError('--every and --at cannot be combined');
        const clock = opts.at !== undefined ? new FixedClock(0) : undefined;
        await withCtx(
          cmd,
          async (ctx, out) => {
            if (clock && opts.at !== undefined) {
              const at = parseTime(opts.at, ctx.zone, 'at');
              // A future time would charge real customers early: only the sandbox may be run ahead.
              // Stripe merchants count too, unless Stripe is a local stand-in (plain http is loopback only).
              if (at > Date.now() && (await chargesRealMoney(ctx)))
                throw invalidParam('at', 'a time in the future needs the sandbox channel');
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
          },
          clock ? { clock } : {},
        );
      }),
    );
}

function positiveInt(text: string): number {
  if (!/^\d{1,9}$/.test(text) || Number(text) < 1) throw invalidParam('limit', 'must be a whole number ≥ 1');
  return Number(text);
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
      ...(bar ? { onProgress: bar.update } : {}),
    });
  } finally {
    bar?.done();
  }
}

function printResult(ctx: Ctx, out: Output, r: RenewResult): void {
  if (r.records !== undefined) {
    const { records, ...summary } = r;
    out.result(
      { ...summary, dryRun: true, records },
      () =>
        `${table(records, { recordId: 'record', subscriptionCode: 'subscription', billingType: 'type', amount: 'amount', currency: 'cur', scheduledTime: 'scheduled', retryCount: 'retry' })}\n${records.length} due (dry run: nothing charged)`,
    );
    return;
  }
  out.result(r, () => `renewal run at ${formatTime(ctx.clock.now(), ctx.zone)}\n${record(r)}`);
}

interface StopSignal {
  requested: () => boolean;
  /** Resolves when a stop is requested. */
  wait: Promise<void>;
  dispose: () => void;
}

/** SIGINT/SIGTERM request a clean stop instead of killing the process mid-charge. */
function stopSignal(): StopSignal {
  let stopped = false;
  let wake: () => void = () => undefined;
  const wait = new Promise<void>((resolve) => {
    wake = resolve;
  });
  const onSignal = (): void => {
    stopped = true;
    wake();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    requested: () => stopped,
    wait,
    dispose: () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
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
        .catch((e: unknown) => out.note(`renewal run failed: ${e instanceof Error ? e.message : String(e)}`));
      return running;
    });
  } catch (e) {
    throw invalidParam('every', `not a valid cron expression: ${e instanceof Error ? e.message : String(e)}`);
  }
  out.note(`renewing on "${expr}"; next run ${job.nextRun()?.toISOString() ?? 'never'}; Ctrl-C to stop`);
  await stop.wait;
  job.stop();
  await running;
}

/** Whether a run charges a real processor: a merchant on Stripe whose API is not a local stand-in. */
async function chargesRealMoney(ctx: Ctx): Promise<boolean> {
  const onStripe = (await ctx.store.listMerchants()).some((m) => m.channel === 'stripe');
  return onStripe && parseStripeApiUrl(stripeApiUrlFrom()).protocol === 'https';
}
