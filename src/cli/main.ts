import { Command, CommanderError, Option } from 'commander';
import { registerMerchantCommands } from './commands/merchant.js';
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
import { registerEventsCommands } from './commands/events.js';
import { registerVaultCommands } from './commands/vault.js';
import { printError } from './output.js';

export function buildProgram(): Command {
  const program = new Command();
  program
    .name('paygate')
    .description('self-hosted merchant payments and subscriptions')
    .version('0.1.0')
    .addOption(new Option('--db <file>', 'database file').env('PAYGATE_DB'))
    .addOption(new Option('--tz <zone>', 'time zone of time strings and billing calendars (IANA name)').env('PAYGATE_TZ'))
    .option('--json', 'machine-readable JSON output')
    .option('--no-color', 'no colour in output')
    .showHelpAfterError(false)
    .configureOutput({ outputError: (str) => printError('usage', str.replace(/^error: /, '').trim()) })
    .exitOverride();

  registerMerchantCommands(program);
  registerPlanCommands(program);
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
  registerEventsCommands(program);
  registerVaultCommands(program);
  return program;
}

async function main(): Promise<void> {
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
      const ok = e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.code === 'commander.help';
      process.exit(ok ? 0 : 2);
    }
    throw e;
  }
}

await main();
