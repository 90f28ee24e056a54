import type { Command } from 'commander';
import { addPaging, pageFooter, pageOf } from '../choose.js';
import { record, table } from '../output.js';
import { action, withCtx } from '../shell.js';

// Services load inside each action (on first use): --help, --version, completion and usage errors never need them.

const emailColumns = {
  emailId: 'email',
  merchantId: 'merchant',
  kind: 'kind',
  to: 'to',
  status: 'status',
  attempts: 'tries',
  nextAttemptTime: 'next attempt',
  lastError: 'last error',
  createTime: 'created',
} as const;

/** What gives way first on a narrow terminal: the id and the status never do. */
const emailOptions = {
  wraps: ['lastError'],
  leaveOut: ['merchantId', 'createTime', 'attempts', 'nextAttemptTime', 'lastError', 'to', 'kind'],
} as const;

/** `paygate email list|resend` (SPEC §17): the customer email outbox. */
export function registerEmailCommands(program: Command): void {
  const email = program.command('email').description('customer emails: delivery state, resend');

  addPaging(
    email
      .command('list')
      .description('customer emails, newest first, with attempts and the last error')
      .option('--status <status>', 'PENDING, SENT or DEAD')
      .option('--merchant <id>', 'only this merchant'),
  ).action(
    action(async (opts: { status?: string; merchant?: string; limit: string; page: string }, cmd: Command) => {
      const req = pageOf(opts);
      await withCtx(cmd, async (ctx, out) => {
        const { requireMerchant } = await import('../../services/merchants.js');
        const { pageEmails } = await import('../../services/emails.js');
        const merchantId = opts.merchant !== undefined ? (await requireMerchant(ctx, opts.merchant)).id : undefined;
        const p = await pageEmails(ctx, { status: opts.status, merchantId }, req);
        out.result(p.items, () => `${table(p.items, emailColumns, emailOptions)}\n${pageFooter(p)}`);
      });
    }),
  );

  email
    .command('resend')
    .argument('<emailId>', 'email id (eml_…)')
    .description('put a DEAD or sent email back in the queue, due now')
    .action(
      action(async (emailId: string, _opts: unknown, cmd: Command) => {
        await withCtx(cmd, async (ctx, out) => {
          const { resendEmail } = await import('../../services/emails.js');
          const v = await resendEmail(ctx, emailId);
          out.result(v, () => `${record(v)}\nqueued: \`paygate serve\` or \`paygate renew\` sends it`);
        });
      }),
    );
}
