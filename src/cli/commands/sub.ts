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
import { confirmIrreversible } from '../prompts.js';
import { action, withCtx } from '../shell.js';
import { visible } from '../visible.js';

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
        await withCtx(cmd, (ctx, out) => {
          const rows = listSubscriptions(ctx, defaultMerchantId(ctx, opts.merchant), { userId: opts.user, status: opts.status });
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
        await withCtx(cmd, (ctx, out) => {
          const d = subscriptionDetail(ctx, defaultMerchantId(ctx, opts.merchant), { subscriptionId: id });
          out.result(d, () => record(d));
        });
      }),
    );

  for (const [name, fn, text, irreversible] of [
    ['pause', pauseSubscription, 'pause renewals (ACTIVE → PAUSED)', false],
    ['resume', resumeSubscription, 'resume renewals (PAUSED → ACTIVE)', false],
    ['cancel', cancelSubscription, 'cancel (ACTIVE, PAUSED or INCOMPLETE → CANCELLED); asks first on a terminal', true],
  ] as const) {
    const c = sub
      .command(name)
      .argument('<id>', 'subscription id')
      .option('--merchant <id>', 'merchant id')
      .description(text);
    if (irreversible) c.option('-y, --yes', 'do not ask for confirmation');
    c.action(
        action(async (id: string, opts: { merchant?: string; yes?: boolean }, cmd: Command) => {
          await withCtx(cmd, async (ctx, out) => {
            const merchantId = defaultMerchantId(ctx, opts.merchant);
            if (irreversible) {
              await confirmIrreversible(out, opts.yes, () => {
                const d = subscriptionDetail(ctx, merchantId, { subscriptionId: id });
                return `Cancel subscription ${d.subscriptionCode} of user ${visible(d.userId)} (${visible(d.planName)})? It cannot be resumed.`;
              });
            }
            fn(ctx, merchantId, { subscriptionId: id });
            const d = subscriptionDetail(ctx, merchantId, { subscriptionId: id });
            out.result(d, () => record(d));
          });
        }),
      );
  }
}
