import chalk from 'chalk';
import { STATUS_NAMES } from '../services/transactions/status.js';
import { AMOUNT_KEYS, moneyStrings, type TableOptions, wideTables } from './output.js';
import { drawTable } from './table-draw.js';
import { fitTable, textWidth, wrapWords } from './table-fit.js';
import { visible } from './visible.js';

/**
 * How the CLI shows rows and objects to people (SPEC §12): tables fitted to the terminal without
 * cutting anything, and `key  value` records. Loaded on first use (output.ts, loadTables).
 */

type Cell = string | number | boolean | null | undefined;

/** Terminal width for tables and records (unknown: 80). */
function terminalWidth(): number {
  const cols = process.stdout.columns;
  return cols && cols > 0 ? cols : 80;
}

/**
 * A transaction status as people read it. A record shows the code, the name and the reason:
 * `300000 FAILED (card_declined)`. A table shows the name (`FAILED`; the reason has its own
 * column), so the id, the status and the amount fit a 60-column terminal. Other statuses
 * (ACTIVE, DELIVERED …) are names already.
 */
function statusText(row: Record<string, unknown>, inRecord: boolean): string | undefined {
  const s = row.status;
  if (typeof s !== 'string' && typeof s !== 'number') return undefined;
  const name = /^\d{6}$/.test(String(s)) ? STATUS_NAMES[Number(s)] : undefined;
  if (!name) return undefined;
  if (!inRecord) return name;
  const reason = typeof row.failReason === 'string' && row.failReason ? ` (${row.failReason})` : '';
  return `${s} ${name}${reason}`;
}

/** A row as people read it: money with its exponent, statuses named, nested values as JSON. */
function humanRow(row: object, foldReason: boolean): Record<string, Cell> {
  const r = moneyStrings(row) as Record<string, unknown>;
  const status = statusText(r, foldReason);
  const out: Record<string, Cell> = {};
  for (const [k, v] of Object.entries(r)) {
    if (v === undefined) continue;
    if (status !== undefined && (k === 'statusName' || (foldReason && k === 'failReason'))) continue;
    out[k] =
      k === 'status' && status !== undefined
        ? status
        : typeof v === 'object' && v !== null
          ? spacedJson(v)
          : (v as Cell);
  }
  return out;
}

/** JSON with a space after `,` and `:` outside strings, so a nested value wraps between its items. */
function spacedJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(spacedJson).join(', ')}]`;
  if (v !== null && typeof v === 'object')
    return `{${Object.entries(v)
      .map(([k, x]) => `${JSON.stringify(k)}: ${spacedJson(x)}`)
      .join(', ')}}`;
  return JSON.stringify(v) ?? 'null';
}

/**
 * A table of rows with the given columns (key → header), fitted to the terminal (SPEC §12):
 * nothing is cut; when the columns do not fit, the least important are left out and a note
 * under the table says which. An amount column shows its currency beside it unless the table
 * has a currency column of its own.
 */
export function table<T extends object, K extends keyof T & string>(
  rows: readonly T[],
  columns: Partial<Record<K, string>>,
  opts: TableOptions<K> = {},
): string {
  if (rows.length === 0) return chalk.dim('(none)');
  const human = rows.map((row) => humanRow(row, false));
  // A column nothing is left in (statusName folded into status) is not shown.
  const keys = (Object.keys(columns) as K[]).filter((k) => human.some((r) => k in r));
  const withCurrency = !keys.includes('currency' as K);
  const cellOf = (r: Record<string, Cell>, k: string): string => {
    const text = plain(r[k]);
    const cur = r.currency ?? r.txnCurrency;
    return withCurrency && AMOUNT_KEYS.has(k) && text !== '' && typeof cur === 'string' ? `${text} ${cur}` : text;
  };
  const fitColumns = keys.map((k) => {
    const rank = opts.leaveOut?.indexOf(k) ?? -1;
    return {
      header: columns[k] ?? k,
      cells: human.map((r) => cellOf(r, k)),
      wraps: opts.wraps?.includes(k) ?? false,
      ...(rank >= 0 ? { drop: (opts.leaveOut?.length ?? 0) - rank } : {}),
    };
  });
  const cols = terminalWidth();
  const fit = fitTable(fitColumns, cols, wideTables());
  const lines = (text: string, width: number, wraps: boolean): string[] =>
    wraps ? wrapWords(text, width) : text.split('\n');
  const body = human.map((_, r) =>
    fit.shown.map((c, i) => {
      const col = fitColumns[c];
      const whole = col?.cells[r] ?? '';
      return {
        lines: lines(whole, fit.widths[i] ?? 1, col?.wraps ?? false),
        paint: (line: string) => colour(keys[c] ?? '', line, whole),
      };
    }),
  );
  const head = fit.shown.map((c, i) => ({
    lines: wrapWords(fitColumns[c]?.header ?? '', fit.widths[i] ?? 1),
    paint: (line: string) => chalk.bold(line),
  }));
  // Rows of one line need no rule between them; wrapped rows do, or they run together.
  const ruled = body.some((row) => row.some((cell) => cell.lines.length > 1));
  const drawn = drawTable(head, body, { widths: fit.widths, ruled });
  if (fit.leftOut.length === 0) return drawn;
  const names = fit.leftOut.map((c) => fitColumns[c]?.header ?? '').join(', ');
  const note = wrapWords(`not shown at ${cols} columns: ${names} (--wide shows them)`, cols);
  return `${drawn}\n${note.map((line) => chalk.dim(line)).join('\n')}`;
}

/** Free text of our own (a heading, an explanation) wrapped at spaces to the terminal's width. */
export function paragraph(text: string): string {
  return wrapWords(text, terminalWidth()).join('\n');
}

/**
 * One object as aligned `key  value` lines: no borders, no separator under every row; long free
 * text wraps at spaces under itself. A value is never cut: a single word wider than the room
 * beside the keys (a long link or order id) is left whole on its line.
 */
export function record(obj: object): string {
  const r = humanRow(obj, true);
  const entries = Object.entries(r).filter(([, v]) => v !== null && v !== undefined);
  const keyWidth = Math.max(...entries.map(([k]) => textWidth(k)));
  const room = Math.max(20, terminalWidth() - keyWidth - 3);
  const rows = entries.map(([k, v]) => {
    const whole = plain(v);
    return [
      { lines: [k], paint: (line: string) => chalk.bold(line) },
      { lines: wrapWords(whole, room), paint: (line: string) => colour(k, line, whole) },
    ];
  });
  const valueWidth = Math.max(1, ...rows.flatMap(([, value]) => (value?.lines ?? []).map(textWidth)));
  return drawTable(undefined, rows, { widths: [keyWidth, valueWidth], bare: true });
}

const plain = (v: Cell): string => (v === null || v === undefined ? '' : visible(String(v)));

const GOOD = new Set(['ACTIVE', 'SUCCESS', 'SUCCEEDED', 'DELIVERED', '200000', '0000']);
const BAD = new Set(['FAILED', 'EXPIRED', 'DEAD', 'DISABLED', 'CANCELLED', 'INACTIVE', '300000', '300010', '300020']);

/** `s` (a line of `whole`) in the colour of the status `whole` starts with. */
function colour(key: string, s: string, whole = s): string {
  if (!/status/i.test(key) || s.trim() === '') return s;
  const first = whole.split(/[\s]/)[0] ?? whole;
  if (GOOD.has(first)) return chalk.green(s);
  if (BAD.has(first)) return chalk.red(s);
  return chalk.yellow(s);
}
