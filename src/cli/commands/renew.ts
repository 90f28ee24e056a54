import type { Command } from 'commander';
import { FixedClock, systemClock } from '../../domain/clock.js';
import { invalidParam } from '../../domain/errors.js';
import { action, UsageError, withCtx } from '../shell.js';

export interface RenewCliOptions {
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
        // Business time on the test clock; leases stay on the real one (serve shares them).
        const clock = opts.at !== undefined ? new FixedClock(0, systemClock) : undefined;
        await withCtx(
          cmd,
          // loaded on first use: --help and the other commands never need the renewal run
          async (ctx, out) => (await import('./renew-run.js')).renew(ctx, out, opts, limit, clock),
          clock ? { clock } : {},
        );
      }),
    );
}

function positiveInt(text: string): number {
  if (!/^\d{1,9}$/.test(text) || Number(text) < 1) throw invalidParam('limit', 'must be a whole number ≥ 1');
  return Number(text);
}
