import type { Ctx } from '../ctx.js';
import { invalidParam } from '../domain/errors.js';
import { monthlyRecurring } from '../domain/mrr.js';
import { formatTime, resolveWallTime, wallTime } from '../domain/time.js';
import type { MonthFigures, RevenueReport } from '../report/figures.js';
import type { MonthWindow } from '../store/store.js';
import { requireMerchant } from './merchants.js';

export interface ReportInput {
  merchantId?: string | undefined;
  /** First month, `yyyy-MM`; default: eleven months before `to`. */
  from?: string | undefined;
  /** Last month, `yyyy-MM`; default: the current month in the zone. */
  to?: string | undefined;
}

/** Ten years of months: enough for any report, small enough to stay one statement per figure. */
const MAX_MONTHS = 120;

interface YearMonth {
  year: number;
  month: number;
}

function parseMonth(text: string, field: string): YearMonth {
  const m = /^(\d{4})-(0[1-9]|1[0-2])$/.exec(text);
  if (!m) throw invalidParam(field, `must be a month written yyyy-MM, such as 2026-01, not ${JSON.stringify(text)}`);
  return { year: Number(m[1]), month: Number(m[2]) };
}

const index = (ym: YearMonth): number => ym.year * 12 + (ym.month - 1);
const fromIndex = (i: number): YearMonth => ({ year: Math.floor(i / 12), month: (i % 12) + 1 });
const label = (ym: YearMonth): string => `${ym.year}-${String(ym.month).padStart(2, '0')}`;

/** Midnight of the month's first day in the zone (a DST gap moves to the first valid instant). */
function monthStart(ym: YearMonth, zone: string): number {
  return resolveWallTime({ year: ym.year, month: ym.month, day: 1, hour: 0, minute: 0, second: 0 }, zone);
}

/**
 * The revenue report (SPEC §15): per calendar month in the database's zone, aggregated by the
 * store in SQL; only the MRR's normalisation (exact fractions, rounded once) happens here.
 * Subscription prices are USD (plans accept USD only), so the report is in USD.
 */
export async function revenueReport(ctx: Ctx, input: ReportInput): Promise<RevenueReport> {
  const merchant = input.merchantId === undefined ? undefined : await requireMerchant(ctx, input.merchantId);
  const now = wallTime(ctx.clock.now(), ctx.zone);
  const last = input.to !== undefined ? parseMonth(input.to, 'to') : { year: now.year, month: now.month };
  const first = input.from !== undefined ? parseMonth(input.from, 'from') : fromIndex(index(last) - 11);
  if (index(first) > index(last)) throw invalidParam('from', `must not be after to (${label(first)} > ${label(last)})`);
  if (index(last) - index(first) + 1 > MAX_MONTHS)
    throw invalidParam('from', `the report covers at most ${MAX_MONTHS} months`);

  const months: YearMonth[] = [];
  for (let i = index(first); i <= index(last); i++) months.push(fromIndex(i));
  const windows: MonthWindow[] = months.map((ym, k) => ({
    start: monthStart(ym, ctx.zone),
    end: monthStart(fromIndex(index(first) + k + 1), ctx.zone),
  }));
  const raw = await ctx.store.revenueFigures({ ...(merchant ? { merchantId: merchant.id } : {}), months: windows });
  const figures: MonthFigures[] = months.map((ym, k) => {
    const r = raw[k];
    return {
      month: label(ym),
      newSubscriptions: r?.newSubscriptions ?? 0,
      churned: r?.churned ?? 0,
      active: (r?.active ?? []).reduce((n, g) => n + g.count, 0),
      mrr: monthlyRecurring(r?.active ?? []),
      charged: r?.charged ?? 0,
      refunded: r?.refunded ?? 0,
      failedAttempts: r?.failedAttempts ?? 0,
      recovered: r?.recovered ?? 0,
    };
  });
  return {
    ...(merchant ? { merchantId: merchant.id, merchantName: merchant.name } : {}),
    currency: 'USD',
    zone: ctx.zone,
    months: figures,
    generatedAt: formatTime(ctx.clock.now(), ctx.zone),
  };
}
