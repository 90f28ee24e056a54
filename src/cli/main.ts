import { createRequire } from 'node:module';
import { Argument, Command, CommanderError, Option } from 'commander';
import { completionScript } from './completion.js';
import { fishCompletionScript } from './completion-fish.js';
import { registerMerchantCommands } from './commands/merchant.js';
import { registerCouponCommands } from './commands/coupon.js';
import { registerPortalCommands } from './commands/portal.js';
import { registerInvoiceCommands } from './commands/invoice.js';
import { registerPlanCommands } from './commands/plan.js';
import { registerDbCommands } from './commands/db.js';
import { registerServeCommands } from './commands/serve.js';
import { registerPayCommands } from './commands/pay.js';
import { registerSubscribeCommands } from './commands/subscribe.js';
import { registerRefundCommands } from './commands/refund.js';
import { registerTrackingCommands } from './commands/tracking.js';
import { registerTxCommands } from './commands/tx.js';
import { registerRenewCommands } from './commands/renew.js';
import { registerSubCommands } from './commands/sub.js';
import { registerBillingCommands } from './commands/billing.js';
import { registerEmailCommands } from './commands/email.js';
import { registerEventsCommands } from './commands/events.js';
import { registerVaultCommands } from './commands/vault.js';
import { registerReportCommands } from './commands/report.js';
import { registerConfigCommands } from './commands/config.js';
import { printError } from './output.js';

const oneLine = (text: string): string => text.trim().replace(/\s*\n\s*/g, ' ');

/** The version of the installed package, read from its package.json (src/cli or dist/cli → ../..). */
function version(): string {
  return (createRequire(import.meta.url)('../../package.json') as { version: string }).version;
}

export function buildProgram(): Command {
  const program = new Command();
  program
    .name('paygate')
    .description('self-hosted merchant payments and subscriptions')
    .version(version(), '-v, --version', 'print the version')
    .addOption(
      new Option(
        '--db <file|url>',
        'SQLite database file, or a PostgreSQL database as a postgres:// or postgresql:// URL (default: ./paygate.db)',
      ).env('PAYGATE_DB'),
    )
    .addOption(
      new Option('--tz <zone>', 'time zone of time strings and billing calendars (IANA name)').env('PAYGATE_TZ'),
    )
    .option('--json', 'machine-readable JSON output')
    .option('--no-color', 'no colour in output')
    .option('--wide', 'tables show every column, even wider than the terminal')
    .showHelpAfterError(false)
    // commander puts its suggestion on a second line; an error is one line (SPEC §12).
    .configureOutput({ outputError: (str) => printError('usage', oneLine(str.replace(/^error: /, ''))) })
    .exitOverride();

  registerMerchantCommands(program);
  registerPlanCommands(program);
  registerCouponCommands(program);
  registerDbCommands(program);
  registerServeCommands(program);
  registerPayCommands(program);
  registerSubscribeCommands(program);
  registerRefundCommands(program);
  registerTrackingCommands(program);
  registerTxCommands(program);
  registerRenewCommands(program);
  registerSubCommands(program);
  registerBillingCommands(program);
  registerPortalCommands(program);
  registerInvoiceCommands(program);
  registerEventsCommands(program);
  registerEmailCommands(program);
  registerVaultCommands(program);
  registerReportCommands(program);
  registerConfigCommands(program);
  program
    .command('completion')
    .description('print a shell completion script: source <(paygate completion bash)')
    .addArgument(new Argument('<shell>', 'bash, zsh or fish').choices(['bash', 'zsh', 'fish']))
    .action((shell: 'bash' | 'zsh' | 'fish') => {
      process.stdout.write(shell === 'fish' ? fishCompletionScript(program) : completionScript(program, shell));
    });
  return program;
}

/**
 * A reader that went away (`paygate … | head`) is not an error of the command: later output is
 * dropped and the work goes on to its end (a renewal run stopped half-way by its reader would
 * leave claimed records for their lease), where an unhandled EPIPE would print a stack trace.
 */
function ignoreClosedReader(stream: NodeJS.WriteStream): void {
  stream.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code !== 'EPIPE' && e.code !== 'ERR_STREAM_DESTROYED') throw e;
  });
}

async function main(): Promise<void> {
  ignoreClosedReader(process.stdout);
  const program = buildProgram();
  // Commander's own exits (help, version, usage errors) come through exitOverride: usage is 2.
  program.commands.forEach(function override(c: Command) {
    c.exitOverride();
    c.commands.forEach(override);
  });
  try {
    await program.parseAsync(process.argv);
  } catch (e) {
    if (e instanceof CommanderError) {
      // Help asked for (--help, `paygate help`) is 0; help shown because no command or
      // subcommand was named (`paygate`, `paygate plan`) is a usage error: 2, its help on stderr.
      const asked = e.code === 'commander.help' && e.exitCode === 0;
      const ok = e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || asked;
      process.exit(ok ? 0 : 2);
    }
    throw e;
  }
}

await main();
