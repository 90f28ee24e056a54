import chalk from 'chalk';
import { currencyExponent, isCurrency } from '../domain/money.js';
import { applyColour, colourLevel } from './colour.js';
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
  /**
   * Print one result of many (a `renew` run; `renew --every` prints one per run, cron appends
   * each to one log): JSON is one compact object on one line, so the stream is JSON Lines and
   * each line is a JSON document of its own. The human rendering as `result`.
   */
  line(data: unknown, human?: () => string): void;
  /** A line for people only (hints, warnings); never printed in JSON mode. */
  note(text: string): void;
}

export function createOutput(opts: { json: boolean; color: boolean; wide?: boolean }): Output {
  const tty = Boolean(process.stdout.isTTY);
  const json = opts.json || !tty;
  wide = Boolean(opts.wide);
  applyColour(json ? 0 : colourLevel(opts.color, process.env, tty));
  return {
    json,
    interactive: !json && Boolean(process.stdin.isTTY),
    result(data, human) {
      if (json) process.stdout.write(JSON.stringify(moneyStrings(data), null, 2) + '\n');
      else if (!human) process.stdout.write(visibleLines(JSON.stringify(moneyStrings(data), null, 2)) + '\n');
      else process.stdout.write(human() + '\n');
    },
    line(data, human) {
      if (json) process.stdout.write(JSON.stringify(moneyStrings(data)) + '\n');
      else this.result(data, human);
    },
    note(text) {
      if (!json) process.stderr.write(chalk.dim(visibleLines(text)) + '\n');
    },
  };
}

/** Fields that hold money; their currency is the object's `currency` (or `txnCurrency`). */
export const AMOUNT_KEYS = new Set([
  'amount',
  'price',
  'totalPaid',
  'payAmount',
  'txnAmount',
  'refundAmount',
  'refundableAmount',
  'refundedAmount',
  'discountAmount',
  'credit',
  'creditBalance',
  'amountOff',
]);

/**
 * Money in CLI output is always a string with its currency's exponent — `"4.50"`, never `4.5` —
 * in JSON and in tables alike (the HTTP API keeps its own documented shapes).
 */
export function moneyStrings(data: unknown, inherited?: string): unknown {
  if (Array.isArray(data)) return data.map((d) => moneyStrings(d, inherited));
  if (data === null || typeof data !== 'object') return data;
  const obj = data as Record<string, unknown>;
  const currency = currencyOf(obj) ?? currencyOf(obj.record) ?? inherited;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) {
    if (AMOUNT_KEYS.has(k) && typeof v === 'number' && currency !== undefined && isCurrency(currency))
      out[k] = v.toFixed(currencyExponent(currency));
    else out[k] = typeof v === 'object' ? moneyStrings(v, currency) : v;
  }
  return out;
}

/**
 * The currency an object's amounts are in: its own, else (a plan change's answer, whose credit
 * has none beside it) its record's, else its parent's.
 */
function currencyOf(v: unknown): string | undefined {
  if (v === null || typeof v !== 'object') return undefined;
  const o = v as Record<string, unknown>;
  return typeof o.currency === 'string' ? o.currency : typeof o.txnCurrency === 'string' ? o.txnCurrency : undefined;
}

/** `--wide`: tables show every column even when wider than the terminal. Set once per run. */
let wide = false;
export const wideTables = (): boolean => wide;

/**
 * Tables and records are drawn by ./tables.ts (cli-table3, string-width), loaded only when a
 * command prints for people (withCtx calls loadTables): --help, usage errors and every --json or
 * piped run never pay for them.
 */
let tables: typeof import('./tables.js') | undefined;
export async function loadTables(): Promise<void> {
  tables ??= await import('./tables.js');
}

/** Pretty JSON, where a human rendering is asked for before the tables were loaded (never expected). */
const fallback = (data: unknown): string => visibleLines(JSON.stringify(moneyStrings(data), null, 2));

/** A table of rows fitted to the terminal: see tables.ts. */
export function table<T extends object, K extends keyof T & string>(
  rows: readonly T[],
  columns: Partial<Record<K, string>>,
  opts: TableOptions<NoInfer<K>> = {},
): string {
  return tables ? tables.table(rows, columns, opts) : fallback(rows);
}

/** One object as aligned `key  value` lines: see tables.ts. */
export function record(obj: object): string {
  return tables ? tables.record(obj) : fallback(obj);
}

/** Free text of our own wrapped at spaces to the terminal's width. */
export function paragraph(text: string): string {
  return tables ? tables.paragraph(text) : text;
}

export interface TableOptions<K extends string> {
  /** Free text: wraps at spaces. Every other column keeps each value whole on one line. */
  wraps?: readonly K[];
  /** Columns that may be left out to fit the terminal, the least important first. */
  leaveOut?: readonly K[];
}

export function printError(code: string, message: string): void {
  process.stderr.write(`error ${code}: ${visible(message)}\n`);
}
