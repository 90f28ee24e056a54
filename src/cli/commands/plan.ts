import type { Command } from 'commander';
import { addPaging, chooseMerchant, pageFooter, pageOf } from '../choose.js';
import { askMissing, checkGiven, type MissingField } from '../prompts.js';
import { amountCheck, textCheck } from '../validate.js';
import { record, table } from '../output.js';
import { CYCLE_TYPES } from '../../domain/cycle-types.js';
import { action, outputOf, withCtx } from '../shell.js';

// Services load inside each action (on first use): --help, --version, completion and usage errors never need them.

interface PlanCreateOptions {
  merchant?: string;
  name?: string;
  price?: string;
  currency: string;
  cycleType?: string;
  cycleLength: string;
  trialDays: string;
  maxSubscriptions: string;
  description?: string;
}

const planColumns = {
  planId: 'plan',
  planName: 'name',
  price: 'price',
  cycleType: 'cycle',
  cycleLength: 'len',
  trialDays: 'trial',
  currentSubscriptions: 'subs',
  maxSubscriptions: 'max',
  status: 'status',
} as const;

/** What gives way first on a narrow terminal: the id, the name and the status never do. */
const planOptions = {
  wraps: ['planName'],
  leaveOut: ['maxSubscriptions', 'currentSubscriptions', 'trialDays', 'cycleLength', 'cycleType', 'price'],
} as const;

export function registerPlanCommands(program: Command): void {
  const plan = program.command('plan').description('subscription plans');

  plan
    .command('create')
    .description('create a plan; on a terminal, missing required values are asked for')
    .option('--merchant <id>', 'merchant id (left out: the only one, or chosen from a list on a terminal)')
    .option('--name <name>', 'plan name (≤200)')
    .option('--price <amount>', 'price per cycle, e.g. 9.99')
    .option('--currency <code>', 'currency (USD only)', 'USD')
    .option('--cycle-type <type>', `one of ${CYCLE_TYPES.join(', ')}`)
    .option('--cycle-length <n>', 'cycle units per charge', '1')
    .option('--trial-days <n>', 'trial days before the first renewal', '0')
    .option('--max-subscriptions <n>', 'cap on current subscriptions, 0 = unlimited', '0')
    .option('--description <text>', 'description (≤500)')
    .action(
      action(async (opts: PlanCreateOptions, cmd: Command) => {
        const out = outputOf(cmd);
        const missing: MissingField[] = [];
        const priceCheck = amountCheck(opts.currency, { positive: false });
        checkGiven('price', opts.price, priceCheck);
        if (opts.name === undefined) missing.push({ flag: '--name', message: 'Plan name', check: textCheck(200) });
        if (opts.price === undefined)
          missing.push({
            flag: '--price',
            message: `Price per cycle in ${opts.currency.toUpperCase()} (e.g. 9.99)`,
            check: priceCheck,
          });
        if (opts.cycleType === undefined)
          missing.push({ flag: '--cycle-type', message: 'Cycle type', choices: CYCLE_TYPES });
        // Off a terminal a missing value is a usage error: found before the database is opened.
        const given = out.interactive ? undefined : await askMissing(out, missing);
        await withCtx(cmd, async (ctx) => {
          const { createPlan } = await import('../../services/plans.js');
          // On a terminal the merchant is chosen first, then the plan's values.
          const merchantId = (await chooseMerchant(ctx, out, opts.merchant)).id;
          const answers = given ?? (await askMissing(out, missing));
          const created = await createPlan(ctx, merchantId, {
            planName: opts.name ?? answers['--name'],
            price: opts.price ?? answers['--price']?.trim(),
            currency: opts.currency,
            cycleType: opts.cycleType ?? answers['--cycle-type'],
            cycleLength: opts.cycleLength,
            trialDays: opts.trialDays,
            maxSubscriptions: opts.maxSubscriptions,
            description: opts.description,
          });
          out.result(created, () => record(created));
        });
      }),
    );

  addPaging(
    plan
      .command('list')
      .description('plans of every merchant, newest first')
      .option('--merchant <id>', 'only this merchant')
      .option('--status <status>', 'ACTIVE or INACTIVE'),
  ).action(
    action(async (opts: { merchant?: string; status?: string; limit: string; page: string }, cmd: Command) => {
      const req = pageOf(opts);
      await withCtx(cmd, async (ctx, out) => {
        const { requireMerchant } = await import('../../services/merchants.js');
        const { pagePlans } = await import('../../services/operator.js');
        const merchantId = opts.merchant !== undefined ? (await requireMerchant(ctx, opts.merchant)).id : undefined;
        const p = await pagePlans(ctx, { merchantId, status: opts.status }, req);
        out.result(p.items, () => `${table(p.items, planColumns, planOptions)}\n${pageFooter(p)}`);
      });
    }),
  );

  plan
    .command('show')
    .argument('<id>', 'plan id')
    .option('--merchant <id>', 'only if it belongs to this merchant')
    .action(
      action(async (id: string, opts: { merchant?: string }, cmd: Command) => {
        await withCtx(cmd, async (ctx, out) => {
          const { planMerchantId } = await import('../../services/operator.js');
          const { showPlan } = await import('../../services/plans.js');
          const p = await showPlan(ctx, await planMerchantId(ctx, id, opts.merchant), id);
          out.result(p, () => record(p));
        });
      }),
    );

  for (const [name, active, text] of [
    ['deactivate', false, 'stop taking new subscriptions (existing ones go on renewing)'],
    ['activate', true, 'take new subscriptions again'],
  ] as const) {
    plan
      .command(name)
      .argument('<id>', 'plan id')
      .option('--merchant <id>', 'only if it belongs to this merchant')
      .description(text)
      .action(
        action(async (id: string, opts: { merchant?: string }, cmd: Command) => {
          await withCtx(cmd, async (ctx, out) => {
            const { planMerchantId } = await import('../../services/operator.js');
            const { setPlanActive } = await import('../../services/plans.js');
            const p = await setPlanActive(ctx, await planMerchantId(ctx, id, opts.merchant), id, active);
            out.result(p, () => record(p));
          });
        }),
      );
  }
}
