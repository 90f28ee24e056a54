import type { Command } from 'commander';
import chalk from 'chalk';
import { addPaging, pageFooter, pageOf } from '../choose.js';
import { record, table } from '../output.js';
import { confirmIrreversible } from '../prompts.js';
import { action, UsageError, withCtx } from '../shell.js';
import { visible } from '../visible.js';
import { readSecrets, type FlagValue, type SecretFlag } from '../secret-input.js';

// Services load inside each action (on first use): --help, --version, completion and usage errors never need them.

const SECRET_KEY: SecretFlag = {
  flag: '--stripe-secret-key',
  env: 'PAYGATE_STRIPE_SECRET_KEY',
  message: 'Stripe secret key (sk_… or rk_…, not shown):',
};
const WEBHOOK_SECRET: SecretFlag = {
  flag: '--stripe-webhook-secret',
  env: 'PAYGATE_STRIPE_WEBHOOK_SECRET',
  message: 'Stripe webhook signing secret (whsec_…, not shown):',
};

/** `merchant update` flags that pass straight to the service under their option names (SPEC §17). */
const DOCUMENT_OPTIONS = [
  'legalName',
  'address',
  'taxId',
  'supportEmail',
  'emailFrom',
  'invoicePrefix',
  'invoiceNext',
  'creditNoteNext',
  'customerEmails',
  'portalActions',
] as const;

export function registerMerchantCommands(program: Command): void {
  const merchant = program.command('merchant').description('create and manage merchants');

  merchant
    .command('create')
    .description('create a merchant; prints its API key and secret once')
    .option('--name <name>', 'merchant name (≤200 characters)')
    .option('--signature-version <n>', 'request signature version, 1 or 2', '2')
    .option('--notify-url <url>', 'default callback URL (http or https)')
    .action(
      action(async (opts: { name?: string; signatureVersion: string; notifyUrl?: string }, cmd: Command) => {
        if (opts.name === undefined) throw new UsageError('missing required option: --name');
        await withCtx(cmd, async (ctx, out) => {
          const { createMerchant } = await import('../../services/merchants.js');
          const created = await createMerchant(ctx, {
            name: opts.name,
            signatureVersion: opts.signatureVersion,
            notifyUrl: opts.notifyUrl,
          });
          out.result(
            created,
            () => `${record(created)}\n${chalk.yellow('Store the API key and secret now: they are not shown again.')}`,
          );
        });
      }),
    );

  addPaging(merchant.command('list').description('list merchants, oldest first (keys and secrets masked)')).action(
    action(async (opts: { limit: string; page: string }, cmd: Command) => {
      const req = pageOf(opts);
      await withCtx(cmd, async (ctx, out) => {
        const { pageMerchants } = await import('../../services/operator.js');
        const p = await pageMerchants(ctx, req);
        out.result(
          p.items,
          () =>
            `${table(p.items, { merchantId: 'merchant', name: 'name', apiKey: 'apiKey', signatureVersion: 'sig', status: 'status', notifyUrl: 'notifyUrl' }, { wraps: ['name'], leaveOut: ['notifyUrl', 'signatureVersion', 'apiKey'] })}\n${pageFooter(p)}`,
        );
      });
    }),
  );

  merchant
    .command('show')
    .argument('<id>', 'merchant id')
    .description('show one merchant (key and secret masked)')
    .action(
      action(async (id: string, _opts: object, cmd: Command) => {
        await withCtx(cmd, async (ctx, out) => {
          const { showMerchant } = await import('../../services/merchants.js');
          const m = await showMerchant(ctx, id);
          out.result(m, () => record(m));
        });
      }),
    );

  merchant
    .command('update')
    .argument('<id>', 'merchant id')
    .description(
      'change the default notify URL, signature version, status or channel, and what invoices and customer emails show',
    )
    .option('--notify-url <url>', 'default callback URL; "" clears it')
    .option('--signature-version <n>', '1 or 2')
    .option('--name <name>', 'new name')
    .option('--disable', 'refuse its requests and pause its renewals')
    .option('--enable', 'accept its requests again')
    .option('-y, --yes', 'do not ask before --disable')
    .option('--channel <channel>', 'where its charges go: sandbox or stripe')
    .option(
      '--stripe-secret-key [key]',
      "the merchant's Stripe secret key (sk_…) or restricted key (rk_…), checked with Stripe first. " +
        'A value typed here is visible to other users (ps) and kept in shell history: give - to read it from stdin, ' +
        'or no value to take $PAYGATE_STRIPE_SECRET_KEY (or be asked, hidden, on a terminal)',
    )
    .option(
      '--stripe-webhook-secret [secret]',
      "the signing secret (whsec_…) of the merchant's Stripe webhook endpoint; like --stripe-secret-key: - reads stdin, " +
        'no value takes $PAYGATE_STRIPE_WEBHOOK_SECRET or asks',
    )
    .option('--legal-name <text>', 'legal name printed on invoices ("" clears it)')
    .option('--address <text>', 'postal address printed on invoices, lines separated by newlines ("" clears it)')
    .option('--tax-id <text>', 'VAT or tax number printed on invoices ("" clears it)')
    .option('--support-email <email>', 'where customers write; replies to customer emails go there ("" clears it)')
    .option('--email-from <email>', 'sender address of customer emails; none are sent without it ("" clears it)')
    .option(
      '--invoice-prefix <prefix>',
      'document number prefix, 1-12 of A-Z, 0-9 and -, not ending in -CN (default INV); new documents only',
    )
    .option('--invoice-next <n>', 'number of the next invoice, to continue a numbering; only moves forward')
    .option('--credit-note-next <n>', 'number of the next credit note; only moves forward')
    .option('--customer-emails <on|off>', 'send receipts and other customer emails (default on)')
    .option(
      '--portal-actions <list>',
      'what subscribers may do on the customer portal: any of cancel,pause,resume,update-card,change-plan, or none (default cancel,update-card)',
    )
    .action(
      action(
        async (
          id: string,
          opts: {
            legalName?: string;
            address?: string;
            taxId?: string;
            supportEmail?: string;
            emailFrom?: string;
            invoicePrefix?: string;
            invoiceNext?: string;
            creditNoteNext?: string;
            customerEmails?: string;
            portalActions?: string;
            notifyUrl?: string;
            signatureVersion?: string;
            name?: string;
            disable?: boolean;
            enable?: boolean;
            yes?: boolean;
            channel?: string;
            stripeSecretKey?: FlagValue;
            stripeWebhookSecret?: FlagValue;
          },
          cmd: Command,
        ) => {
          if (opts.disable && opts.enable) throw new UsageError('--disable and --enable exclude each other');
          const patch: Record<string, unknown> = {};
          if (opts.notifyUrl !== undefined) patch.notifyUrl = opts.notifyUrl;
          if (opts.signatureVersion !== undefined) patch.signatureVersion = opts.signatureVersion;
          if (opts.name !== undefined) patch.name = opts.name;
          if (opts.disable) patch.status = 'DISABLED';
          if (opts.enable) patch.status = 'ACTIVE';
          if (opts.channel !== undefined) patch.channel = opts.channel;
          for (const key of DOCUMENT_OPTIONS) if (opts[key] !== undefined) patch[key] = opts[key];
          const secrets = opts.stripeSecretKey !== undefined || opts.stripeWebhookSecret !== undefined;
          if (Object.keys(patch).length === 0 && !secrets) {
            throw new UsageError(
              'nothing to update: give --notify-url, --signature-version, --name, --disable, --enable, --channel, a Stripe key or a document setting (--legal-name, --invoice-prefix, …) or --portal-actions',
            );
          }
          await withCtx(cmd, async (ctx, out) => {
            const { showMerchant, updateMerchant } = await import('../../services/merchants.js');
            const [key, hook] = await readSecrets(out, [
              { flag: SECRET_KEY, value: opts.stripeSecretKey },
              { flag: WEBHOOK_SECRET, value: opts.stripeWebhookSecret },
            ]);
            if (key !== undefined) patch.stripeSecretKey = key;
            if (hook !== undefined) patch.stripeWebhookSecret = hook;
            if (opts.disable) {
              const current = await showMerchant(ctx, id);
              if (current.status !== 'DISABLED') {
                await confirmIrreversible(
                  out,
                  opts.yes,
                  () =>
                    `Disable merchant ${current.merchantId} (${visible(current.name)})? Its payments are refused and its renewals wait until --enable.`,
                );
              }
            }
            const m = await updateMerchant(ctx, id, patch);
            out.result(m, () => record(m));
          });
        },
      ),
    );

  merchant
    .command('rotate-secret')
    .argument('<id>', 'merchant id')
    .description('issue a new secret (shown once); the old one works 24 more hours')
    .action(
      action(async (id: string, _opts: object, cmd: Command) => {
        await withCtx(cmd, async (ctx, out) => {
          const { rotateSecret } = await import('../../services/merchants.js');
          const r = await rotateSecret(ctx, id);
          out.result(r, () => `${record(r)}\n${chalk.yellow('Store the new secret now: it is not shown again.')}`);
        });
      }),
    );
  merchant
    .command('rotate-key')
    .argument('<id>', 'merchant id')
    .description(
      'issue a new apiKey (shown once), e.g. when the old one was lost or leaked; the old one works 24 more hours',
    )
    .action(
      action(async (id: string, _opts: object, cmd: Command) => {
        await withCtx(cmd, async (ctx, out) => {
          const { rotateApiKey } = await import('../../services/merchants.js');
          const r = await rotateApiKey(ctx, id);
          out.result(
            r,
            () =>
              `${record(r)}\n${chalk.yellow('Store the new apiKey now: it is not shown again. Payment URLs (/payment/{apiKey}/…) must move to it within 24 hours.')}`,
          );
        });
      }),
    );
}
