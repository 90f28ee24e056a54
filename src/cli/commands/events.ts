import type { Command } from 'commander';
import { FixedClock, systemClock } from '../../domain/clock.js';
import { invalidParam } from '../../domain/errors.js';
import { addPaging, pageFooter, pageOf } from '../choose.js';
import { record, table } from '../output.js';
import { action, withCtx } from '../shell.js';

// Services load inside each action (on first use): --help, --version, completion and usage errors never need them.

const eventColumns = {
  eventId: 'event',
  merchantId: 'merchant',
  eventType: 'type',
  status: 'status',
  attempts: 'tries',
  lastHttpStatus: 'http',
  nextAttemptTime: 'next attempt',
  lastError: 'last error',
  createTime: 'created',
} as const;

/** What gives way first on a narrow terminal: the id and the status never do. */
const eventOptions = {
  wraps: ['lastError'],
  leaveOut: ['merchantId', 'createTime', 'lastHttpStatus', 'attempts', 'nextAttemptTime', 'lastError', 'eventType'],
} as const;

function positiveInt(name: string, text: string): number {
  if (!/^\d{1,6}$/.test(text) || Number(text) < 1) throw invalidParam(name, 'must be a whole number ≥ 1');
  return Number(text);
}

/** `paygate events list|resend|deliver` (SPEC §8, §12). */
export function registerEventsCommands(program: Command): void {
  const events = program.command('events').description('callback events: delivery state, resend');

  addPaging(
    events
      .command('list')
      .description('callback events, newest first, with attempts, last HTTP status and error')
      .option('--status <status>', 'PENDING, DELIVERED or DEAD')
      .option('--subscription <code>', 'only this subscription (code or id)')
      .option('--merchant <id>', 'only this merchant'),
  ).action(
    action(
      async (
        opts: { status?: string; subscription?: string; merchant?: string; limit: string; page: string },
        cmd: Command,
      ) => {
        const req = pageOf(opts);
        await withCtx(cmd, async (ctx, out) => {
          const { requireMerchant } = await import('../../services/merchants.js');
          const { pageEvents } = await import('../../services/operator.js');
          const merchantId = opts.merchant !== undefined ? (await requireMerchant(ctx, opts.merchant)).id : undefined;
          const p = await pageEvents(ctx, { status: opts.status, subscription: opts.subscription, merchantId }, req);
          out.result(p.items, () => `${table(p.items, eventColumns, eventOptions)}\n${pageFooter(p)}`);
        });
      },
    ),
  );

  events
    .command('resend')
    .argument('<eventId>', 'event id (evt_…)')
    .description('put a DEAD or delivered event back in the queue, due now')
    .action(
      action(async (eventId: string, _opts: unknown, cmd: Command) => {
        await withCtx(cmd, async (ctx, out) => {
          const { resendEvent } = await import('../../services/events.js');
          const ev = await resendEvent(ctx, eventId);
          out.result(ev, () => `${record(ev)}\nqueued: \`paygate serve\` or \`paygate events deliver\` sends it`);
        });
      }),
    );

  events
    .command('deliver')
    .description('deliver due callbacks now, then exit (serve and renew also do this)')
    .option('--at <time>', 'as if the clock read this "yyyy-MM-dd HH:mm:ss" (test clock for the retry schedule)')
    .option('--limit <n>', 'attempt at most N events')
    .option('--concurrency <n>', 'deliveries in flight at once', '8')
    .action(
      action(async (opts: { at?: string; limit?: string; concurrency: string }, cmd: Command) => {
        // Due on the test clock; leases stay on the real one (serve shares them).
        const clock = opts.at !== undefined ? new FixedClock(0, systemClock) : undefined;
        const limit = opts.limit === undefined ? undefined : positiveInt('limit', opts.limit);
        const concurrency = positiveInt('concurrency', opts.concurrency);
        await withCtx(
          cmd,
          async (ctx, out) => {
            const { parseTime } = await import('../../domain/time.js');
            const { deliverDue } = await import('../../notify/deliver.js');
            const { closeCallbackAgents } = await import('../../notify/http-client.js');
            if (clock && opts.at !== undefined) clock.set(parseTime(opts.at, ctx.zone, 'at'));
            try {
              const r = await deliverDue(ctx, { concurrency, ...(limit !== undefined ? { limit } : {}) });
              out.result(r, () => record(r));
            } finally {
              await closeCallbackAgents();
            }
          },
          clock ? { clock } : {},
        );
      }),
    );
}
