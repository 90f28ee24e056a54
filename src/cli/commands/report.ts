import type { Command } from 'commander';
import { closeSync, lstatSync, openSync, readSync } from 'node:fs';
import { formatAmount } from '../../domain/money.js';
import chalk from 'chalk';
import type { RevenueReport } from '../../report/figures.js';
import { paragraph, table } from '../output.js';
import { outputFile, writeOutputFile } from '../output-file.js';
import { action, globalsOf, withCtx } from '../shell.js';
import { visible } from '../visible.js';

// Services load inside each action (on first use): --help, --version, completion and usage errors never need them.

interface ReportOptions {
  merchant?: string;
  from?: string;
  to?: string;
  html?: string;
  force?: boolean;
}

/** The report as `--json` prints it: every amount a string with the currency's decimals. */
export function reportJson(r: RevenueReport): object {
  const money = (minor: number): string => formatAmount(minor, r.currency);
  return {
    ...(r.merchantId ? { merchantId: r.merchantId, merchantName: r.merchantName } : {}),
    currency: r.currency,
    zone: r.zone,
    generatedAt: r.generatedAt,
    months: r.months.map((m) => ({ ...m, mrr: money(m.mrr), charged: money(m.charged), refunded: money(m.refunded) })),
  };
}

function terminalReport(r: RevenueReport, plot: typeof import('asciichart').plot, scope: string): string {
  const money = (minor: number): string => formatAmount(minor, r.currency);
  const rows = r.months.map((m) => ({
    month: m.month,
    new: String(m.newSubscriptions),
    churned: String(m.churned),
    active: String(m.active),
    mrr: money(m.mrr),
    charged: money(m.charged),
    refunded: money(m.refunded),
    failed: String(m.failedAttempts),
    recovered: String(m.recovered),
  }));
  const who = r.merchantName ? `${visible(r.merchantName)} (${r.merchantId})` : 'all merchants';
  const head = `Revenue report — ${who} · ${r.currency} · months in ${r.zone}\n${chalk.dim(paragraph(scope))}`;
  const body = table(
    rows,
    {
      month: 'month',
      new: 'new',
      churned: 'churned',
      active: 'active',
      mrr: 'MRR',
      charged: 'subs charged',
      refunded: 'subs refunded',
      failed: 'failed attempts',
      recovered: 'recovered',
    },
    { leaveOut: ['recovered', 'failed', 'churned', 'new', 'active'] },
  );
  // asciichart needs two points to draw a line; one month is just the table.
  if (r.months.length < 2) return `${head}\n${body}`;
  const exponent = formatAmount(0, r.currency).split('.')[1]?.length ?? 0;
  const chart = plot(
    r.months.map((m) => m.mrr / 10 ** exponent),
    { height: 8, format: (x: number) => x.toFixed(exponent).padStart(12) },
  );
  const axis = `${' '.repeat(13)}${r.months[0]?.month ?? ''} … ${r.months[r.months.length - 1]?.month ?? ''}`;
  return `${head}\n${body}\n\nMRR at month end (${r.currency})\n${chart}\n${axis}`;
}

/** Whether `file` is a page `report --html` wrote: its head carries the report's generator tag. */
async function isReportPage(file: string): Promise<boolean> {
  const { REPORT_GENERATOR } = await import('../../report/html.js');
  let fd: number | undefined;
  try {
    if (!lstatSync(file).isFile()) return false;
    fd = openSync(file, 'r');
    const head = Buffer.alloc(2048);
    const n = readSync(fd, head, 0, head.length, 0);
    return head.subarray(0, n).toString('utf8').includes(REPORT_GENERATOR);
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

export function registerReportCommands(program: Command): void {
  program
    .command('report')
    .description('revenue per month: new, churned, active, MRR, charged, refunded, failed attempts, recovered by retry')
    .option('--merchant <id>', 'one merchant (default: all)')
    .option('--from <yyyy-MM>', 'first month (default: 11 months before --to)')
    .option('--to <yyyy-MM>', 'last month (default: this month)')
    .option(
      '--html <file>',
      'also write a self-contained HTML page with SVG charts (a report page written before is refreshed)',
    )
    .option('--force', 'replace the --html file even if it is not a report page paygate wrote')
    .action(
      action(async (opts: ReportOptions, cmd: Command) => {
        // Running the report again refreshes its page; any other file there is refused (it may be
        // the database or its key) unless --force says so.
        const replace = Boolean(opts.force) || (opts.html !== undefined && (await isReportPage(opts.html)));
        const target = opts.html ? outputFile('html', opts.html, { replace }) : undefined;
        await withCtx(cmd, async (ctx, out) => {
          const { reportHtml } = await import('../../report/html.js');
          const { REPORT_SCOPE } = await import('../../report/figures.js');
          const { revenueReport } = await import('../../services/report.js');
          const { plot } = await import('asciichart');
          const report = await revenueReport(ctx, { merchantId: opts.merchant, from: opts.from, to: opts.to });
          if (target) writeOutputFile('html', target, reportHtml(report), { replace });
          // The page is the output asked for: off a terminal, JSON too only when --json says so.
          const jsonAsked = Boolean(globalsOf(cmd).json);
          if (!target || !out.json || jsonAsked)
            out.result(reportJson(report), () => terminalReport(report, plot, REPORT_SCOPE));
          if (target) out.note(`wrote ${target}`);
        });
      }),
    );
}
