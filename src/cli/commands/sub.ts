import type { Command } from 'commander';
import { addCardOptions, cardInfoFrom, type CardOptions } from './pay.js';
import { addPaging, pageFooter, pageOf } from '../choose.js';
import { record, table } from '../output.js';
import { confirmIrreversible } from '../prompts.js';
import { action, exitForCharge, exitThreeIf, outputOf, withCtx } from '../shell.js';
import { visible } from '../visible.js';

// Services load inside each action (on first use): --help, --version, completion and usage errors never need them.

const listColumns = {
  subscriptionId: 'subscription',
  subscriptionCode: 'code',
  userId: 'user',
  planName: 'plan',
  amount: 'amount',
  status: 'status',
  nextBillingTime: 'next billing',
  billingCount: 'paid',
  failedCount: 'failed',
} as const;

/** What gives way first on a narrow terminal: the id and the status never do. */
const listOptions = {
  wraps: ['planName'],
  leaveOut: ['failedCount', 'billingCount', 'subscriptionCode', 'planName', 'amount', 'userId', 'nextBillingTime'],
} as const;

/** `paygate sub list|show|update|pause|resume|cancel` (SPEC §12): a subscription by its id or its code, no --merchant needed. */
export function registerSubCommands(program: Command): void {
  const sub = program.command('sub').description('subscriptions');

  addPaging(
    sub
      .command('list')
      .description('subscriptions of every merchant, newest first')
      .option('--merchant <id>', 'only this merchant')
      .option('--user <id>', 'only this user')
      .option('--status <status>', 'INCOMPLETE, ACTIVE, PAUSED, CANCELLED, FAILED or EXPIRED'),
  ).action(
    action(
      async (
        opts: { merchant?: string; user?: string; status?: string; limit: string; page: string },
        cmd: Command,
      ) => {
        const req = pageOf(opts);
        await withCtx(cmd, async (ctx, out) => {
          const { pageSubscriptions } = await import('../../services/operator.js');
          const { requireMerchant } = await import('../../services/merchants.js');
          const merchantId = opts.merchant !== undefined ? (await requireMerchant(ctx, opts.merchant)).id : undefined;
          const p = await pageSubscriptions(ctx, { merchantId, userId: opts.user, status: opts.status }, req);
          out.result(p.items, () => `${table(p.items, listColumns, listOptions)}\n${pageFooter(p)}`);
        });
      },
    ),
  );

  sub
    .command('show')
    .argument('<id>', 'subscription id or code')
    .option('--merchant <id>', 'only if it belongs to this merchant')
    .action(
      action(async (id: string, opts: { merchant?: string }, cmd: Command) => {
        await withCtx(cmd, async (ctx, out) => {
          const { subscriptionRef } = await import('../../services/operator.js');
          const { subscriptionDetail } = await import('../../services/subscriptions/index.js');
          const ref = await subscriptionRef(ctx, id, opts.merchant);
          const d = await subscriptionDetail(ctx, ref.merchantId, { subscriptionId: ref.id });
          out.result(d, () => record(d));
        });
      }),
    );

  sub
    .command('update')
    .argument('<id>', 'subscription id or code')
    .requiredOption('--email <address>', 'where its customer emails go from now on')
    .option('--merchant <id>', 'only if it belongs to this merchant')
    .description("change a subscription's email address, where its customer emails go")
    .action(
      action(async (id: string, opts: { email: string; merchant?: string }, cmd: Command) => {
        await withCtx(cmd, async (ctx, out) => {
          const { subscriptionRef } = await import('../../services/operator.js');
          const { updateSubscription } = await import('../../services/subscriptions/index.js');
          const ref = await subscriptionRef(ctx, id, opts.merchant);
          const d = await updateSubscription(ctx, ref.merchantId, { subscriptionId: ref.id, email: opts.email });
          out.result(d, () => record(d));
        });
      }),
    );

  addCardOptions(
    sub
      .command('update-card')
      .argument('<id>', 'subscription id or code')
      .option('--merchant <id>', 'only if it belongs to this merchant')
      .description(
        "replace an ACTIVE or PAUSED subscription's card (a zero-amount check; a waiting retry becomes due at once)",
      ),
  ).action(
    action(async (id: string, opts: CardOptions & { merchant?: string }, cmd: Command) => {
      const cardInfo = await cardInfoFrom(outputOf(cmd), opts);
      await withCtx(cmd, async (ctx, out) => {
        const { subscriptionRef } = await import('../../services/operator.js');
        const { updateCard } = await import('../../services/card-update/index.js');
        const ref = await subscriptionRef(ctx, id, opts.merchant);
        const r = await updateCard(ctx, ref.merchantId, { subscriptionId: ref.id, cardInfo });
        out.result(r, () => record(r));
        exitForCharge(r.status);
      });
    }),
  );

  sub
    .command('coupon')
    .argument('<id>', 'subscription id or code')
    .argument('<code>', 'coupon code of the subscription’s merchant')
    .option('--merchant <id>', 'only if it belongs to this merchant')
    .description('give an ACTIVE or PAUSED subscription a coupon from its next charge on (it replaces any other)')
    .action(
      action(async (id: string, code: string, opts: { merchant?: string }, cmd: Command) => {
        await withCtx(cmd, async (ctx, out) => {
          const { subscriptionRef } = await import('../../services/operator.js');
          const { takeCoupon } = await import('../../services/take-coupon.js');
          const ref = await subscriptionRef(ctx, id, opts.merchant);
          const d = await takeCoupon(ctx, ref.merchantId, { subscriptionId: ref.id, couponCode: code });
          out.result(d, () => record(d));
        });
      }),
    );

  sub
    .command('change')
    .argument('<id>', 'subscription id or code')
    .requiredOption('--plan <id>', 'the plan to move to (same merchant and currency)')
    .option('--now', 'change at once: credit the unused period, charge the difference (default: at the next renewal)')
    .option('--merchant <id>', 'only if it belongs to this merchant')
    .description('move an ACTIVE subscription to another plan, at period end or --now')
    .action(
      action(async (id: string, opts: { plan: string; now?: boolean; merchant?: string }, cmd: Command) => {
        await withCtx(cmd, async (ctx, out) => {
          const { subscriptionRef } = await import('../../services/operator.js');
          const { changePlan } = await import('../../services/plan-change/index.js');
          const ref = await subscriptionRef(ctx, id, opts.merchant);
          const r = await changePlan(ctx, ref.merchantId, {
            subscriptionId: ref.id,
            planId: opts.plan,
            when: opts.now ? 'NOW' : 'PERIOD_END',
          });
          const { record: rec, ...summary } = r;
          out.result(r, () =>
            record({
              ...summary,
              ...(rec ? { charged: rec.amount, recordId: rec.recordId, recordStatus: rec.status } : {}),
            }),
          );
          exitThreeIf(r.result === 'DECLINED');
          if (r.result === 'PENDING') process.exitCode = 4;
        });
      }),
    );

  for (const [name, fn, text, irreversible] of [
    ['pause', 'pauseSubscription', 'pause renewals (ACTIVE → PAUSED)', false],
    ['resume', 'resumeSubscription', 'resume renewals (PAUSED → ACTIVE)', false],
    [
      'cancel',
      'cancelSubscription',
      'cancel (ACTIVE, PAUSED or INCOMPLETE → CANCELLED); asks first on a terminal',
      true,
    ],
  ] as const) {
    const c = sub
      .command(name)
      .argument('<id>', 'subscription id or code')
      .option('--merchant <id>', 'only if it belongs to this merchant')
      .description(text);
    if (irreversible) c.option('-y, --yes', 'do not ask for confirmation');
    c.action(
      action(async (id: string, opts: { merchant?: string; yes?: boolean }, cmd: Command) => {
        await withCtx(cmd, async (ctx, out) => {
          const { subscriptionRef } = await import('../../services/operator.js');
          const subscriptions = await import('../../services/subscriptions/index.js');
          const { subscriptionDetail } = subscriptions;
          const ref = await subscriptionRef(ctx, id, opts.merchant);
          if (irreversible) {
            await confirmIrreversible(out, opts.yes, async () => {
              const d = await subscriptionDetail(ctx, ref.merchantId, { subscriptionId: ref.id });
              return `Cancel subscription ${d.subscriptionCode} of user ${visible(d.userId)} (${visible(d.planName)})? It cannot be resumed.`;
            });
          }
          await subscriptions[fn](ctx, ref.merchantId, { subscriptionId: ref.id });
          const d = await subscriptionDetail(ctx, ref.merchantId, { subscriptionId: ref.id });
          out.result(d, () => record(d));
        });
      }),
    );
  }
}
