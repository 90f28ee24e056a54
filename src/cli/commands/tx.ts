import type { Command } from 'commander';
import { addPaging, pageFooter, pageOf } from '../choose.js';
import { record, table } from '../output.js';
import { STATUS } from '../../services/transactions/status.js';
import { invalidParam } from '../../domain/errors.js';
import { action, withCtx } from '../shell.js';

// Services load inside each action (on first use): --help, --version, completion and usage errors never need them.

const columns = {
  transactionOrderId: 'transaction',
  relationId: 'order',
  paymentType: 'type',
  status: 'status',
  failReason: 'reason',
  payAmount: 'amount',
  card: 'card',
  createTime: 'created',
} as const;

/** What gives way first on a narrow terminal, the amount last: the id and the status never do. */
const leaveOut = ['card', 'paymentType', 'relationId', 'failReason', 'createTime', 'payAmount'] as const;

/** `--status` takes the code (200000) or the name (SUCCEEDED). */
function statusCode(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (/^\d{6}$/.test(text)) return Number(text);
  const code = (STATUS as Record<string, number>)[text.toUpperCase()];
  // A value the command refuses is 1001 (exit 1), as `events list`, `email list`, `plan list`,
  // `sub list` and `billing list` answer a bad --status; a usage error (2) is a malformed command line.
  if (code === undefined)
    throw invalidParam(
      'status',
      `unknown status ${text} (use a code like 200000 or a name like ${Object.keys(STATUS).join(', ')})`,
    );
  return code;
}

export function registerTxCommands(program: Command): void {
  const tx = program.command('tx').description('transactions (card numbers are always masked)');
  addPaging(
    tx
      .command('list')
      .description('transactions of every merchant, newest first')
      .option('--merchant <id>', 'only this merchant')
      .option('--status <status>', 'status code or name'),
  ).action(
    action(async (opts: { merchant?: string; status?: string; limit: string; page: string }, cmd: Command) => {
      const req = pageOf(opts);
      const status = statusCode(opts.status);
      await withCtx(cmd, async (ctx, out) => {
        const { requireMerchant } = await import('../../services/merchants.js');
        const { pageTransactions } = await import('../../services/operator.js');
        const merchantId = opts.merchant ? (await requireMerchant(ctx, opts.merchant)).id : undefined;
        const p = await pageTransactions(ctx, { merchantId, status }, req);
        out.result(p.items, () => `${table(p.items, columns, { leaveOut })}\n${pageFooter(p)}`);
      });
    }),
  );
  tx.command('show')
    .argument('<id>', 'transactionOrderId')
    .option('--merchant <id>', 'only if it belongs to this merchant')
    .action(
      action(async (id: string, opts: { merchant?: string }, cmd: Command) => {
        await withCtx(cmd, async (ctx, out) => {
          const { showTransaction } = await import('../../services/transactions/index.js');
          const t = await showTransaction(ctx, id, opts.merchant);
          out.result(t, () => record(t));
        });
      }),
    );
}
