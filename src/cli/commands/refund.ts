import type { Command } from 'commander';
import { chooseMerchant } from '../choose.js';
import { askMissing, checkGiven, confirmIrreversible } from '../prompts.js';
import { visible } from '../visible.js';
import { amountCheck } from '../validate.js';
import { record } from '../output.js';
import { action, outputOf, UsageError, withCtx } from '../shell.js';

// Services load inside each action (on first use): --help, --version, completion and usage errors never need them.

interface RefundOptions {
  merchant?: string;
  tx?: string;
  relation?: string;
  amount?: string;
  request?: string;
  yes?: boolean;
}

export function registerRefundCommands(program: Command): void {
  program
    .command('refund')
    .description('refund part or all of a paid transaction')
    .option(
      '--merchant <id>',
      'merchant of --relation (left out: the only one, or chosen from a list on a terminal); with --tx: only if it is this one',
    )
    .option('--tx <id>', 'transactionOrderId')
    .option('--relation <id>', 'relationId')
    .option('--amount <amount>', 'amount to refund, e.g. 5.00')
    .option('--request <id>', 'idempotency key: the same refund again is not refunded twice')
    .option('-y, --yes', 'do not ask for confirmation')
    .action(
      action(async (opts: RefundOptions, cmd: Command) => {
        const out = outputOf(cmd);
        if (opts.tx === undefined && opts.relation === undefined) throw new UsageError('give --tx ID or --relation ID');
        // The refund's currency is the transaction's; 2 decimals is the widest the amount syntax allows.
        const check = amountCheck('USD', { positive: true });
        checkGiven('refundAmount', opts.amount, check);
        const amount =
          opts.amount ??
          (await askMissing(out, [{ flag: '--amount', message: 'Amount to refund (e.g. 5.00)', check }]))[
            '--amount'
          ]?.trim();
        await withCtx(cmd, async (ctx) => {
          const { requireMerchant } = await import('../../services/merchants.js');
          const { transactionMerchantId } = await import('../../services/operator.js');
          const { refundTransaction } = await import('../../services/refund.js');
          const { queryTransaction } = await import('../../services/transactions/index.js');
          // A transaction id names its merchant; a relationId is only unique within one.
          const merchant =
            opts.tx !== undefined
              ? await requireMerchant(ctx, await transactionMerchantId(ctx, opts.tx, opts.merchant))
              : await chooseMerchant(ctx, out, opts.merchant);
          await confirmIrreversible(out, opts.yes, async () => {
            const t = await queryTransaction(ctx, merchant.id, {
              transactionOrderId: opts.tx,
              relationId: opts.relation,
            });
            return `Refund ${amount} ${t.currency} of ${t.transactionOrderId} (order ${visible(t.relationId ?? '')}, paid ${t.payAmount} ${t.currency})? A refund cannot be taken back.`;
          });
          const view = await refundTransaction(ctx, merchant, {
            merchantId: merchant.id,
            transactionOrderId: opts.tx,
            relationId: opts.relation,
            refundAmount: amount,
            requestId: opts.request,
          });
          out.result(view, () => record(view));
        });
      }),
    );
}
