import type { Command } from 'commander';
import { requireMerchant } from '../../services/merchants.js';
import { listTransactions, showTransaction, STATUS } from '../../services/transactions/index.js';
import { record, table } from '../output.js';
import { action, UsageError, withCtx } from '../shell.js';

const columns = {
  transactionOrderId: 'transactionOrderId',
  relationId: 'relationId',
  paymentType: 'type',
  status: 'status',
  statusName: 'state',
  payAmount: 'amount',
  currency: 'cur',
  card: 'card',
  failReason: 'failReason',
  createTime: 'created',
} as const;

/** `--status` takes the code (200000) or the name (SUCCEEDED). */
function statusCode(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (/^\d{6}$/.test(text)) return Number(text);
  const code = (STATUS as Record<string, number>)[text.toUpperCase()];
  if (code === undefined) throw new UsageError(`--status: unknown status ${text} (use a code like 200000 or a name like ${Object.keys(STATUS).join(', ')})`);
  return code;
}

export function registerTxCommands(program: Command): void {
  const tx = program.command('tx').description('transactions (card numbers are always masked)');
  tx.command('list')
    .description('list transactions, newest first')
    .option('--merchant <id>', 'only this merchant')
    .option('--status <status>', 'status code or name')
    .option('--limit <n>', 'at most N rows', '50')
    .action(
      action(async (opts: { merchant?: string; status?: string; limit: string }, cmd: Command) => {
        if (!/^\d{1,6}$/.test(opts.limit) || Number(opts.limit) < 1) throw new UsageError('--limit must be a whole number ≥ 1');
        const status = statusCode(opts.status);
        await withCtx(cmd, async (ctx, out) => {
          const merchantId = opts.merchant ? (await requireMerchant(ctx, opts.merchant)).id : undefined;
          const rows = await listTransactions(ctx, { merchantId, status, limit: Number(opts.limit) });
          out.result(rows, () => table(rows, columns));
        });
      }),
    );
  tx.command('show')
    .argument('<id>', 'transactionOrderId')
    .option('--merchant <id>', 'only if it belongs to this merchant')
    .action(
      action(async (id: string, opts: { merchant?: string }, cmd: Command) => {
        await withCtx(cmd, async (ctx, out) => {
          const t = await showTransaction(ctx, id, opts.merchant);
          out.result(t, () => record(t));
        });
      }),
    );
}
