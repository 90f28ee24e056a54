import type { Command } from 'commander';
import type { Ctx } from '../ctx.js';
import type { Page, PageRequest } from '../services/operator.js';
import type { MerchantRow } from '../services/rows.js';
import type { Output } from './output.js';
import { UsageError } from './shell.js';
import { visible } from './visible.js';

/**
 * The merchant a command acts for: `--merchant`, else the only one; with several, a terminal
 * chooses from the list, anything else gets the usual error (1001 naming --merchant).
 */
export async function chooseMerchant(ctx: Ctx, out: Output, given: string | undefined): Promise<MerchantRow> {
  const [{ defaultMerchantId, requireMerchant }, { merchantChoices }] = await Promise.all([
    import('../services/merchants.js'),
    import('../services/operator.js'),
  ]);
  const all = await merchantChoices(ctx);
  if (given !== undefined || all.length < 2 || !out.interactive)
    return await requireMerchant(ctx, await defaultMerchantId(ctx, given));
  const { select } = await import('@inquirer/prompts');
  const id = await select({
    message: 'Merchant',
    choices: all.map((m) => ({
      value: m.id,
      name: `${visible(m.name)}  ${m.id}${m.status === 'ACTIVE' ? '' : `  (${m.status})`}`,
    })),
  });
  return await requireMerchant(ctx, id);
}

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 1000;

/** `--limit N --page N` on every list. */
export function addPaging(cmd: Command): Command {
  return cmd
    .option('--limit <n>', `rows per page (1–${MAX_LIMIT})`, String(DEFAULT_LIMIT))
    .option('--page <n>', "page number, in the list's own order (1 = the first rows)", '1');
}

export function pageOf(opts: { limit: string; page: string }): PageRequest {
  const limit = /^\d{1,4}$/.test(opts.limit) ? Number(opts.limit) : NaN;
  if (!(limit >= 1 && limit <= MAX_LIMIT))
    throw new UsageError(`--limit must be a whole number from 1 to ${MAX_LIMIT}`);
  const page = /^\d{1,9}$/.test(opts.page) ? Number(opts.page) : NaN;
  if (!(page >= 1)) throw new UsageError('--page must be a whole number ≥ 1');
  return { page, limit };
}

/** The line under a list: where this page is and how to get the next. */
export function pageFooter(p: Page<unknown>): string {
  const first = (p.page - 1) * p.limit + 1;
  const rows = p.items.length === 0 ? 'no rows' : `rows ${first}–${first + p.items.length - 1}`;
  return `page ${p.page} · ${rows}${p.more ? ` · more: --page ${p.page + 1}` : ' · end of list'}`;
}
