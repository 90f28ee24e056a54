import type { Command } from 'commander';
import { chooseMerchant } from '../choose.js';
import { record, table } from '../output.js';
import { action, withCtx } from '../shell.js';

// Services load inside each action (on first use): --help, --version and usage errors never need them.

interface CouponCreateOptions {
  merchant?: string;
  code: string;
  percentOff?: string;
  amountOff?: string;
  duration: string;
  cycles?: string;
  redeemBy?: string;
  maxRedemptions?: string;
  plan: string[];
}

const couponColumns = {
  couponCode: 'code',
  percentOff: '% off',
  amountOff: 'off',
  duration: 'duration',
  cycles: 'cycles',
  redemptions: 'used',
  maxRedemptions: 'max',
  status: 'status',
} as const;

const collect = (value: string, previous: string[]): string[] => [...previous, value];

export function registerCouponCommands(program: Command): void {
  const coupon = program.command('coupon').description('discount coupons of a merchant');

  coupon
    .command('create')
    .description('create a coupon (its fields never change; deactivate it to stop it being taken)')
    .option('--merchant <id>', 'merchant id (left out: the only one, or chosen from a list on a terminal)')
    .requiredOption('--code <code>', 'code the subscriber gives: 1–50 of A-Z a-z 0-9 _ -')
    .option('--percent-off <p>', 'percent off, 0.01–100 (at most two decimals)')
    .option('--amount-off <amount>', 'amount off in USD, e.g. 5.00')
    .requiredOption('--duration <d>', 'ONCE, REPEATING or FOREVER')
    .option('--cycles <n>', 'REPEATING: how many charges it covers (1–120)')
    .option('--redeem-by <time>', 'last time it can be taken, "yyyy-MM-dd HH:mm:ss"')
    .option('--max-redemptions <n>', 'how many subscriptions can take it')
    .option('--plan <id>', 'only for this plan (repeat for several)', collect, [])
    .action(
      action(async (opts: CouponCreateOptions, cmd: Command) => {
        await withCtx(cmd, async (ctx, out) => {
          const { createCoupon } = await import('../../services/coupons.js');
          const merchantId = (await chooseMerchant(ctx, out, opts.merchant)).id;
          const created = await createCoupon(ctx, merchantId, {
            code: opts.code,
            percentOff: opts.percentOff,
            amountOff: opts.amountOff,
            duration: opts.duration,
            cycles: opts.cycles,
            redeemBy: opts.redeemBy,
            maxRedemptions: opts.maxRedemptions,
            planIds: opts.plan.length > 0 ? opts.plan : undefined,
          });
          out.result(created, () => record(created));
        });
      }),
    );

  coupon
    .command('list')
    .description("a merchant's coupons, newest first")
    .option('--merchant <id>', 'merchant id (left out: the only one, or chosen from a list on a terminal)')
    .action(
      action(async (opts: { merchant?: string }, cmd: Command) => {
        await withCtx(cmd, async (ctx, out) => {
          const { listCoupons } = await import('../../services/coupons.js');
          const items = await listCoupons(ctx, (await chooseMerchant(ctx, out, opts.merchant)).id);
          out.result(items, () => table(items, couponColumns));
        });
      }),
    );

  for (const [name, text] of [
    ['show', 'one coupon with its redemptions'],
    ['deactivate', 'stop it being taken, for good (subscriptions holding it keep their discount)'],
  ] as const) {
    coupon
      .command(name)
      .argument('<code>', 'coupon code')
      .option('--merchant <id>', 'merchant id (left out: the only one, or chosen from a list on a terminal)')
      .description(text)
      .action(
        action(async (code: string, opts: { merchant?: string }, cmd: Command) => {
          await withCtx(cmd, async (ctx, out) => {
            const { deactivateCoupon, showCoupon } = await import('../../services/coupons.js');
            const merchantId = (await chooseMerchant(ctx, out, opts.merchant)).id;
            const c = await (name === 'show' ? showCoupon : deactivateCoupon)(ctx, merchantId, code);
            out.result(c, () => record(c));
          });
        }),
      );
  }
}
