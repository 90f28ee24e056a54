import type { Command } from 'commander';
import { askMissing, type MissingField } from '../prompts.js';
import { textCheck } from '../validate.js';
import { action, exitForCharge, outputOf, withCtx } from '../shell.js';
import { addCardOptions, cardInfoFrom, cliId, renderTransaction, type CardOptions } from './pay.js';

// Services load inside each action (on first use): --help, --version, completion and usage errors never need them.

interface SubscribeOptions extends CardOptions {
  merchant?: string;
  plan?: string;
  user?: string;
  relation?: string;
  request?: string;
  notifyUrl?: string;
  coupon?: string;
}

export function registerSubscribeCommands(program: Command): void {
  const sub = program
    .command('subscribe')
    .description('subscribe a user to a plan: the first charge; the card is vaulted for renewals')
    .option('--merchant <id>', 'only if the plan belongs to this merchant (the plan names its merchant)')
    .option('--plan <id>', 'plan id')
    .option('--user <id>', 'your user id')
    .option('--relation <id>', 'relationId; defaults to --request, else generated')
    .option(
      '--request <id>',
      'idempotency key (requestId): run again with the same one to retry safely; generated when left out',
    )
    .option('--notify-url <url>', 'callback URL for this subscription, kept for every renewal')
    .option('--coupon <code>', 'a coupon of the merchant to start with (refused with 1012 if it cannot be taken)');
  addCardOptions(sub).action(
    action(async (opts: SubscribeOptions, cmd: Command) => {
      const out = outputOf(cmd);
      const missing: MissingField[] = [];
      if (opts.plan === undefined) missing.push({ flag: '--plan', message: 'Plan id', check: textCheck(64) });
      if (opts.user === undefined) missing.push({ flag: '--user', message: 'User id', check: textCheck(200) });
      const a = await askMissing(out, missing);
      const cardInfo = await cardInfoFrom(out, opts);
      const planId = opts.plan ?? a['--plan'] ?? '';
      await withCtx(cmd, async (ctx) => {
        const { requireMerchant } = await import('../../services/merchants.js');
        const { planMerchantId } = await import('../../services/operator.js');
        const { createTransaction, showTransaction } = await import('../../services/transactions/index.js');
        // The plan names its merchant.
        const merchant = await requireMerchant(ctx, await planMerchantId(ctx, planId, opts.merchant));
        const view = await createTransaction(ctx, merchant, {
          merchantId: merchant.id,
          requestId: opts.request ?? cliId('cli'),
          // A retry with the same --request must be the same request: the order id cannot be new.
          relationId: opts.relation ?? opts.request ?? cliId('sub'),
          paymentType: 'SUBSCRIPTION',
          planId,
          userId: opts.user ?? a['--user'],
          cardInfo,
          notifyUrl: opts.notifyUrl,
          couponCode: opts.coupon,
        });
        const card = (await showTransaction(ctx, view.transactionOrderId, merchant.id)).card;
        out.result(view, () => renderTransaction(view, card));
        exitForCharge(view.status);
      });
    }),
  );
}
