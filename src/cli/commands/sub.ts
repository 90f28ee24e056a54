import type { Command } from 'commander';
import { defaultMerchantId } from '../../services/merchants.js';
import {
  cancelSubscription,
  listSubscriptions,
  pauseSubscription,
  resumeSubscription,
  subscriptionDetail,
} from '../../services/subscriptions/index.js';
import { record, table } from '../output.js';
import { action, withCtx } from '../shell.js';

const listColumns = {
  subscriptionId: 'subscriptionId',
  subscriptionCode: 'code',
  userId: 'user',
  planName: 'plan',
  amount: 'amount',
  status: 'status',
  nextBillingTime: 'next billing',
  billingCount: 'paid',
  failedCount: 'failed',
} as const;

/** `paygate sub list|show|pause|resume|cancel` (SPEC §12). */
export function registerSubCommands(program: Command): void {
  const sub = program.command('sub').description('subscriptions');

  sub
    .command('list')
    .description("a merchant's subscriptions, newest first (without --user: the newest 100)")
    .option('--merchant <id>', 'merchant id')
    .option('--user <id>', 'only this user')
    .option('--status <status>', 'INCOMPLETE, ACTIVE, PAUSED, CANCELLED, FAILED or EXPIRED')
    .action(
      action(async (opts: { merchant?: string; user?: string; status?: string }, cmd: Command) => {
        await withCtx(cmd, async (ctx, out) => {
          const rows = await listSubscriptions(ctx, await defaultMerchantId(ctx, opts.merchant), { userId: opts.user, status: opts.status });
          out.result(rows, () => table(rows, listColumns));
        });
      }),
    );

  sub
    .command('show')
    .argument('<id>', 'subscription id')
    .option('--merchant <id>', 'merchant id')
    .action(
      action(async (id: string, opts: { merchant?: string }, cmd: Command) => {
        await withCtx(cmd, async (ctx, out) => {
          const d = await subscriptionDetail(ctx, await defaultMerchantId(ctx, opts.merchant), { subscriptionId: id });
          out.result(d, () => record(d));
        });
      }),
    );

  for (const [name, fn, text] of [
    ['pause', pauseSubscription, 'pause renewals (ACTIVE → PAUSED)'],
    ['resume', resumeSubscription, 'resume renewals (PAUSED → ACTIVE)'],
    ['cancel', cancelSubscription, 'cancel (ACTIVE, PAUSED or INCOMPLETE → CANCELLED)'],
  ] as const) {
    sub
      .command(name)
      .argument('<id>', 'subscription id')
      .option('--merchant <id>', 'merchant id')
      .description(text)
      .action(
        action(async (id: string, opts: { merchant?: string }, cmd: Command) => {
          await withCtx(cmd, async (ctx, out) => {
            const merchantId = await defaultMerchantId(ctx, opts.merchant);
            fn(ctx, merchantId, { subscriptionId: id });
            const d = await subscriptionDetail(ctx, merchantId, { subscriptionId: id });
            out.result(d, () => record(d));
          });
        }),
      );
  }
}
