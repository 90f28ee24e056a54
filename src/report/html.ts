import { formatAmount } from '../domain/money.js';
import { REPORT_SCOPE as SCOPE, type RevenueReport } from './figures.js';
import { escapeXml, lineChart } from './svg-chart.js';

/**
 * The revenue report as ONE self-contained HTML page: inline CSS and SVG, no script, no font,
 * image or stylesheet from anywhere (its CSP forbids them), so it can be mailed or archived and
 * opens the same offline. Numbers are the same figures `--json` prints.
 */
/** Marks a page as a report paygate wrote: `report --html` may refresh it in place (cli/commands/report.ts). */
export const REPORT_GENERATOR = '<meta name="generator" content="paygate revenue report">';

export function reportHtml(report: RevenueReport): string {
  const money = (minor: number): string => formatAmount(minor, report.currency);
  const labels = report.months.map((m) => m.month);
  const mrrChart = lineChart({
    title: `MRR (${report.currency})`,
    labels,
    series: [{ name: 'MRR', color: '#1f6feb', values: report.months.map((m) => m.mrr) }],
    format: (v) => money(Math.round(v)),
  });
  const cashChart = lineChart({
    title: `Subscription charges and refunds (${report.currency})`,
    labels,
    series: [
      { name: 'charged', color: '#1a7f37', values: report.months.map((m) => m.charged) },
      { name: 'refunded', color: '#cf222e', dash: '6 4', values: report.months.map((m) => m.refunded) },
    ],
    format: (v) => money(Math.round(v)),
  });
  const rows = report.months
    .map(
      (m) =>
        `<tr><th scope="row">${escapeXml(m.month)}</th><td>${m.newSubscriptions}</td><td>${m.churned}</td><td>${m.active}</td>` +
        `<td>${money(m.mrr)}</td><td>${money(m.charged)}</td><td>${money(m.refunded)}</td><td>${m.failedAttempts}</td><td>${m.recovered}</td></tr>`,
    )
    .join('\n');
  const who = report.merchantName ? `${report.merchantName} (${report.merchantId ?? ''})` : 'all merchants';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
${REPORT_GENERATOR}
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<title>paygate revenue report — ${escapeXml(who)}</title>
<style>
body { font-family: system-ui, sans-serif; margin: 2rem auto; max-width: 60rem; padding: 0 1rem; color: #1f2328; }
h1 { font-size: 1.4rem; } p.meta { color: #59636e; }
table { border-collapse: collapse; width: 100%; margin: 1rem 0 2rem; font-variant-numeric: tabular-nums; }
th, td { padding: .35rem .6rem; border-bottom: 1px solid #d1d9e0; text-align: right; }
th[scope=row], thead th:first-child { text-align: left; }
figure { margin: 1.5rem 0; } figcaption { font-weight: 600; margin-bottom: .5rem; }
svg { width: 100%; height: auto; }
</style>
</head>
<body>
<h1>Revenue report — ${escapeXml(who)}</h1>
<p class="meta">Months in ${escapeXml(report.zone)}; amounts in ${escapeXml(report.currency)}; made ${escapeXml(report.generatedAt)}.</p>
<p class="meta">${SCOPE}</p>
<table id="figures">
<thead><tr><th scope="col">month</th><th scope="col">new</th><th scope="col">churned</th><th scope="col">active</th><th scope="col">MRR</th><th scope="col">charged (subscriptions)</th><th scope="col">refunded (subscriptions)</th><th scope="col">failed attempts</th><th scope="col">recovered</th></tr></thead>
<tbody>
${rows}
</tbody>
</table>
<figure id="mrr"><figcaption>MRR at month end</figcaption>${mrrChart}</figure>
<figure id="cash"><figcaption>Subscription charges and refunds</figcaption>${cashChart}</figure>
</body>
</html>
`;
}
