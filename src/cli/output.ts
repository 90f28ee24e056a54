import chalk from 'chalk';
import Table from 'cli-table3';
import { visible, visibleLines } from './visible.js';
import { applyColour, colourLevel } from './colour.js';

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
      if (json) process.stdout.write(JSON.stringify(data, null, 2) + '\n');
      else if (!human) process.stdout.write(visibleLines(JSON.stringify(data, null, 2)) + '\n');
      else process.stdout.write(human() + '\n');
    },
    note(text) {
      if (!json) process.stderr.write(chalk.dim(visibleLines(text)) + '\n');
    },
  };
}

type Cell = string | number | boolean | null | undefined;

/** A table of rows with the given columns (key → header). */
export function table<T extends object>(rows: readonly T[], columns: Partial<Record<keyof T & string, string>>): string {
  const keys = Object.keys(columns) as (keyof T & string)[];
  const t = new Table({ head: keys.map((k) => chalk.bold(columns[k] ?? k)), style: { head: [], border: [] } });
  for (const row of rows) t.push(keys.map((k) => colourCell(k, (row as Record<string, Cell>)[k])));
  return rows.length === 0 ? chalk.dim('(none)') : t.toString();
}

/** One object as a two-column key/value table. */
export function record(obj: object): string {
  const t = new Table({ style: { head: [], border: [] } });
  for (const [k, v] of Object.entries(obj)) {
    if (v === undefined) continue;
    t.push({ [chalk.bold(k)]: colourCell(k, typeof v === 'object' && v !== null ? JSON.stringify(v) : (v as Cell)) });
  }
  return t.toString();
}

const GOOD = new Set(['ACTIVE', 'SUCCESS', 'SUCCEEDED', 'DELIVERED', '200000', '0000']);
const BAD = new Set(['FAILED', 'EXPIRED', 'DEAD', 'DISABLED', 'CANCELLED', 'INACTIVE', '300000', '300010', '300020']);

function colourCell(key: string, v: Cell): string {
  if (v === null || v === undefined) return '';
  const s = visible(String(v));
  if (/status/i.test(key)) {
    if (GOOD.has(s)) return chalk.green(s);
    if (BAD.has(s)) return chalk.red(s);
    return chalk.yellow(s);
  }
  return s;
}

export function printError(code: string, message: string): void {
  process.stderr.write(`error ${code}: ${visible(message)}\n`);
}
