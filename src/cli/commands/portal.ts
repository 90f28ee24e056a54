import type { Command } from 'commander';
import { chooseMerchant } from '../choose.js';
import { record } from '../output.js';
import { action, withCtx } from '../shell.js';

// Services load inside the action (on first use): --help and usage errors never need them.

export function registerPortalCommands(program: Command): void {
  const portal = program
    .command('portal')
    .description('the customer portal where subscribers manage their subscriptions');

  portal
    .command('link')
    .description('a link to the portal for one user, valid 60 minutes (give it to that user only)')
    .option('--merchant <id>', 'merchant id (left out: the only one, or chosen from a list on a terminal)')
    .requiredOption('--user <userId>', "the user's id, as the shop subscribed them")
    .option('--return-url <url>', 'where the page links back to the shop')
    .action(
      action(async (opts: { merchant?: string; user: string; returnUrl?: string }, cmd: Command) => {
        await withCtx(cmd, async (ctx, out) => {
          const { createPortalSession } = await import('../../services/portal/index.js');
          const merchantId = (await chooseMerchant(ctx, out, opts.merchant)).id;
          const link = await createPortalSession(ctx, merchantId, { userId: opts.user, returnUrl: opts.returnUrl });
          out.result(link, () => record(link));
        });
      }),
    );
}
