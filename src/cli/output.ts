import chalk from 'chalk';
import { currencyExponent, isCurrency } from '../domain/money.js';
import { STATUS_NAMES } from '../services/transactions/status.js';
import { applyColour, colourLevel } from './colour.js';
import { fitCell, fitColumns } from './layout.js';
import { visible, visibleLines } from './visible.js';

/**
 * Everything the CLI prints goes through here: JSON on stdout with --json or off a terminal,
 * tables and colour on a terminal, errors as one line on stderr.
 */
export interface Output {
  readonly json: boolean;
  readonly interactive: boolean;
  /** Print a result: JSON, or the human rendering. */
  result(data: unknown, human?: () => string): void;
  /** A line for people only (hints, warnings); never printed in JSON mode. */
  note(text: string): void;
}

export function createOutput(opts: { json: boolean; color: boolean }): Output {
  const tty = Boolean(process.stdout.isTTY);
  const json = opts.json || !tty;
  applyColour(json ? 0 : colourLevel(opts.color, process.env, tty));
  return {
    json,
    interactive: !json && Boolean(process.stdin.isTTY),
    result(data, human) {
      if (json) process.stdout.write(JSON.stringify(moneyStrings(data), null, 2) + '\n');
      else if (!human) process.stdout.write(visibleLines(JSON.stringify(moneyStrings(data), null, 2)) + '\n');
      else process.stdout.write(human() + '\n');
    },
    note(text) {
      if (!json) process.stderr.write(chalk.dim(visibleLines(text)) + '\n');
    },
  };
}

/** Fields that hold money; their currency is the object's `currency` (or `txnCurrency`). */
const AMOUNT_KEYS = new Set([
  'amount',
  'price',
  'totalPaid',
  'payAmount',
  'txnAmount',
  'refundAmount',
  'refundableAmount',
  'refundedAmount',
]);

/**
 * Money in CLI output is always a string with its currency's exponent — `"4.50"`, never `4.5` —
 * in JSON and in tables alike (the HTTP API keeps its own documented shapes).
 */
export function moneyStrings(data: unknown): unknown {
  if (Array.isArray(data)) return data.map(moneyStrings);
  if (data === null || typeof data !== 'object') return data;
  const obj = data as Record<string, unknown>;
  const currency =
    typeof obj.currency === 'string' ? obj.currency : typeof obj.txnCurrency === 'string' ? obj.txnCurrency : undefined;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) {
    if (AMOUNT_KEYS.has(k) && typeof v === 'number' && currency !== undefined && isCurrency(currency))
      out[k] = v.toFixed(currencyExponent(currency));
    else out[k] = typeof v === 'object' ? moneyStrings(v) : v;
  }
  return out;
}

type Cell = string | number | boolean | null | undefined;

/** Terminal width for tables (a pipe or an unknown size: 80). */
function terminalWidth(): number {
  const cols = process.stdout.columns;
  return cols && cols > 20 ? cols : 80;
}

/** Ids (`txn_…`, `mer_…`, `evt_…`) and other single tokens that are better shortened than wrapped. */
const looksLikeId = (key: string): boolean => /(^|[a-z])(Id|id|Code|code)$|^(card|apiKey|record|eventId)$/.test(key);

/**
 * A transaction status shown with its name and reason: `300000 FAILED (card_declined)`.
 * Other statuses (ACTIVE, DELIVERED …) are names already.
 */
function statusText(row: Record<string, unknown>): string | undefined {
  const s = row.status;
  if (typeof s !== 'string' && typeof s !== 'number') return undefined;
  const name = /^\d{6}$/.test(String(s)) ? STATUS_NAMES[Number(s)] : undefined;
  if (!name) return undefined;
  const reason = typeof row.failReason === 'string' && row.failReason ? ` (${row.failReason})` : '';
  return `${s} ${name}${reason}`;
}

/** A row as people read it: money with its exponent, statuses named, nested values as JSON. */
function humanRow(row: object): Record<string, Cell> {
  const r = moneyStrings(row) as Record<string, unknown>;
  const status = statusText(r);
  const out: Record<string, Cell> = {};
  for (const [k, v] of Object.entries(r)) {
    if (v === undefined) continue;
    if (status !== undefined && (k === 'statusName' || k === 'failReason')) continue;
    out[k] =
      k === 'status' && status !== undefined
        ? status
        : typeof v === 'object' && v !== null
          ? JSON.stringify(v)
          : (v as Cell);
  }
  return out;
}

/** A table of rows with the given columns (key → header), fitted to the terminal's width. */
export function table<T extends object>(
  rows: readonly T[],
  columns: Partial<Record<keyof T & string, string>>,
): string {
  if (rows.length === 0) return chalk.dim('(none)');
  const human = rows.map(humanRow);
  // A column nothing is left in (statusName folded into status) is not shown.
  const keys = (Object.keys(columns) as (keyof T & string)[]).filter((k) => human.some((r) => k in r));
  const header = keys.map((k) => columns[k] ?? k);
  const body = human.map((r) => keys.map((k) => plain(r[k])));
  const fits = fitColumns([header, ...body], keys.map(looksLikeId), terminalWidth());
  const fitted = body.map((cells) =>
    cells.map((text, c) => fitCell(text, fits[c] ?? { width: text.length, id: false })),
  );
  const widths = fits.map((f) => f.width);
  // Rows of one line need no rule between them; wrapped rows do, or they run together.
  const ruled = fitted.some((cells) => cells.some((text) => text.includes('\n')));
  const rule = (l: string, m: string, r: string): string => `${l}${widths.map((w) => '─'.repeat(w + 2)).join(m)}${r}`;
  const line = (cells: string[], paint: (c: number, text: string, whole: string) => string): string[] => {
    const split = cells.map((t) => t.split('\n'));
    const height = Math.max(...split.map((l) => l.length));
    return Array.from(
      { length: height },
      (_, i) =>
        `│ ${split.map((lines, c) => paint(c, (lines[i] ?? '').padEnd(widths[c] ?? 0), cells[c] ?? '')).join(' │ ')} │`,
    );
  };
  const out = [
    rule('┌', '┬', '┐'),
    ...line(
      header.map((h, c) => fitCell(h, { width: fits[c]?.width ?? h.length, id: false })),
      (_, t) => chalk.bold(t),
    ),
    rule('├', '┼', '┤'),
  ];
  fitted.forEach((cells, i) => {
    if (ruled && i > 0) out.push(rule('├', '┼', '┤'));
    out.push(...line(cells, (c, t, whole) => colour(keys[c] ?? '', t, whole)));
  });
  out.push(rule('└', '┴', '┘'));
  return out.join('\n');
}

/**
 * One object as aligned `key  value` lines: no borders, no separator under every row; long
 * values wrap under themselves.
 */
export function record(obj: object): string {
  const r = humanRow(obj);
  const entries = Object.entries(r).filter(([, v]) => v !== null && v !== undefined);
  const keyWidth = Math.max(...entries.map(([k]) => k.length));
  const valueWidth = Math.max(20, terminalWidth() - keyWidth - 3);
  return entries
    .map(([k, v]) => {
      const lines = fitCell(plain(v), { width: valueWidth, id: false }).split('\n');
      const whole = plain(v);
      const first = `${chalk.bold(k.padEnd(keyWidth))}   ${colour(k, lines[0] ?? '', whole)}`;
      return [first, ...lines.slice(1).map((l) => `${' '.repeat(keyWidth + 3)}${colour(k, l, whole)}`)].join('\n');
    })
    .join('\n');
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

export function printError(code: string, message: string): void {
  process.stderr.write(`error ${code}: ${visible(message)}\n`);
}
