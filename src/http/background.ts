import { Cron } from 'croner';
import type { FastifyBaseLogger } from 'fastify';
import type { Ctx } from '../ctx.js';
import { startDeliveryLoop } from '../notify/deliver.js';
import { startCustomerEmailLoop } from '../services/documents/email-delivery.js';
import { runRenewal } from '../services/renew/index.js';

export interface BackgroundOptions {
  renew: boolean;
  renewCron: string;
  log: FastifyBaseLogger;
}

export interface Background {
  /** Stop the timers and wait for a run under way to finish its charges. */
  stop(): Promise<void>;
}

/** A bad --renew-cron is a usage error before anything starts. */
export function checkCron(expr: string): string | undefined {
  try {
    const job = new Cron(expr, { paused: true });
    const next = job.nextRun();
    job.stop();
    return next === null ? 'no date matches it, so it would never run' : undefined;
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
}

/**
 * The renewal timer and the callback delivery loop that run inside `serve` (SPEC §1, §7). `protect` skips a tick while the
 * previous run is still going, so runs never overlap in this process (claims with leases keep
 * other processes apart).
 */
export function startBackground(ctx: Ctx, opts: BackgroundOptions): Background {
  let stopping = false;
  let running: Promise<unknown> = Promise.resolve();
  const job = opts.renew
    ? new Cron(opts.renewCron, { protect: true, timezone: ctx.zone }, () => {
        const run = runRenewal(ctx, { shouldStop: () => stopping, deliverCallbacks: false })
          .then((summary) => {
            if (summary.due > 0 || summary.expired > 0) opts.log.info({ renewal: summary }, 'renewal run');
          })
          .catch((err: unknown) => opts.log.error({ err }, 'renewal run failed'));
        running = run;
        return run;
      })
    : undefined;
  // Callbacks (SPEC §8) go out continuously, not only after renewal runs.
  const delivery = startDeliveryLoop(ctx, {
    onError: (err) => opts.log.error({ err }, 'callback delivery pass failed'),
  });
  // Customer emails (SPEC §17) likewise; without PAYGATE_SMTP_URL there are none to send.
  const emails =
    ctx.config.smtpUrl !== undefined
      ? startCustomerEmailLoop(ctx, {
          onError: (err) => opts.log.error({ err }, 'customer email delivery pass failed'),
        })
      : undefined;
  return {
    async stop() {
      stopping = true;
      job?.stop();
      await Promise.all([running, delivery.stop(), emails?.stop()]);
    },
  };
}
