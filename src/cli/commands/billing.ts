import type { Command } from 'commander';
import { table } from '../output.js';
import { action, withCtx } from '../shell.js';

// Services load inside each action (on first use): --help, --version, completion and usage errors never need them.

/** `paygate billing list --subscription CODE` (SPEC §5 pagination, newest first). */
export function registerBillingCommands(program: Command): void {
  const billing = program.command('billing').description('billing records of a subscription');
  billing
    .command('list')
    .description("a subscription's billing records, newest first, a page at a time")
    .requiredOption('--subscription <code>', 'subscription code or id')
    .option('--merchant <id>', 'only if it belongs to this merchant')
    .option('--status <status>', 'PENDING, SUCCESS, FAILED or CANCELLED')
    .option('--page <n>', 'page number (≥1)', '1')
    .option('--page-size <n>', 'records per page (1–100)', '10')
    .action(
      action(
        async (
          opts: { subscription: string; merchant?: string; status?: string; page: string; pageSize: string },
          cmd: Command,
        ) => {
          await withCtx(cmd, async (ctx, out) => {
            const { subscriptionRef } = await import('../../services/operator.js');
            const { listBillingRecords } = await import('../../services/subscriptions/index.js');
            const ref = await subscriptionRef(ctx, opts.subscription, opts.merchant);
            const page = await listBillingRecords(ctx, ref.merchantId, {
              subscriptionCode: ref.code,
              status: opts.status,
              pageNum: opts.page,
              pageSize: opts.pageSize,
            });
            out.result(page, () => {
              const pages = Math.max(1, Math.ceil(page.total / page.pageSize));
              const rows = table(
                page.records,
                {
                  recordId: 'record',
                  billingType: 'type',
                  amount: 'amount',
                  status: 'status',
                  scheduledTime: 'scheduled',
                  actualTime: 'charged',
                  retryCount: 'retry',
                  failReason: 'reason',
                },
                // The id and the status never give way.
                { leaveOut: ['retryCount', 'actualTime', 'billingType', 'failReason', 'scheduledTime', 'amount'] },
              );
              return `${rows}\npage ${page.pageNum} of ${pages} (${page.total} records)`;
            });
          });
        },
      ),
    );
}
