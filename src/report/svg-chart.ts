/**
 * A small line chart as inline SVG, for the revenue report's self-contained HTML page: no
 * script, no external resource, readable without colour (each series also has its own dash).
 * Pure: figures in, markup out.
 */
export interface Series {
  name: string;
  values: readonly number[];
  color: string;
  dash?: string;
}

export interface LineChartInput {
  title: string;
  labels: readonly string[];
  series: readonly Series[];
  format: (value: number) => string;
}

const W = 720;
const H = 260;
// Month labels are centred on their points: the right pad holds half of the last one ("2027-01").
const PAD = { left: 84, right: 40, top: 36, bottom: 40 };

export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Round a maximum up to 1, 2 or 5 × a power of ten, so the axis reads in round steps. */
function niceMax(max: number): number {
  if (max <= 0) return 1;
  const p = 10 ** Math.floor(Math.log10(max));
  for (const m of [1, 2, 5, 10]) if (m * p >= max) return m * p;
  return 10 * p;
}

export function lineChart(input: LineChartInput): string {
  const { labels, series } = input;
  const top = niceMax(Math.max(0, ...series.flatMap((s) => s.values)));
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const x = (i: number): number => PAD.left + (labels.length <= 1 ? plotW / 2 : (i * plotW) / (labels.length - 1));
  const y = (v: number): number => PAD.top + plotH - (v / top) * plotH;
  const r = (n: number): string => n.toFixed(1);

  const grid = [0, 0.25, 0.5, 0.75, 1]
    .map((f) => {
      const v = top * f;
      return (
        `<line x1="${PAD.left}" x2="${W - PAD.right}" y1="${r(y(v))}" y2="${r(y(v))}" stroke="#ddd"/>` +
        `<text x="${PAD.left - 6}" y="${r(y(v) + 4)}" text-anchor="end" font-size="11">${escapeXml(input.format(v))}</text>`
      );
    })
    .join('');
  const every = Math.max(1, Math.ceil(labels.length / 12));
  const xLabels = labels
    .map((l, i) =>
      i % every === 0
        ? `<text x="${r(x(i))}" y="${H - PAD.bottom + 16}" text-anchor="middle" font-size="11">${escapeXml(l)}</text>`
        : '',
    )
    .join('');
  const lines = series
    .map((s) => {
      const pts = s.values.map((v, i) => `${r(x(i))},${r(y(v))}`).join(' ');
      const dots = s.values
        .map(
          (v, i) =>
            `<circle cx="${r(x(i))}" cy="${r(y(v))}" r="2.5" fill="${s.color}"><title>${escapeXml(`${s.name} ${labels[i] ?? ''}: ${input.format(v)}`)}</title></circle>`,
        )
        .join('');
      return `<polyline fill="none" stroke="${s.color}" stroke-width="2"${s.dash ? ` stroke-dasharray="${s.dash}"` : ''} points="${pts}"/>${dots}`;
    })
    .join('');
  const legend = series
    .map(
      (s, i) =>
        `<g transform="translate(${PAD.left + i * 160},14)"><line x1="0" x2="24" y1="0" y2="0" stroke="${s.color}" stroke-width="2"${s.dash ? ` stroke-dasharray="${s.dash}"` : ''}/><text x="30" y="4" font-size="12">${escapeXml(s.name)}</text></g>`,
    )
    .join('');
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${H}" role="img" aria-label="${escapeXml(input.title)}" font-family="system-ui, sans-serif">` +
    `<title>${escapeXml(input.title)}</title>${grid}${xLabels}${lines}${legend}</svg>`
  );
}
