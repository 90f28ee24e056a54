import { createRequire } from 'node:module';
import type CliTable3 from 'cli-table3';
import stringWidth from 'string-width';

/**
 * Drawing a fitted table with cli-table3. cli-table3 measures text with its own, older
 * string-width, which disagrees with the terminal on some text (Thai and Devanagari marks,
 * newer emoji), and would then pad a row out of line or cut its end. So cli-table3 lays out
 * stand-ins of exactly the terminal width of each line, and the text takes their places after:
 * the borders are cli-table3's, the widths are the terminal's.
 */

/** A private-use character: one column wide to both measures, and never in the layout's own output. */
const STAND_IN = '\u{E000}';
const RUN = /\u{E000}+/gu;

// cli-table3 is CommonJS; loaded on first use so --help and JSON output never pay for it.
const load = (): typeof CliTable3 => createRequire(import.meta.url)('cli-table3') as typeof CliTable3;

export interface DrawnCell {
  /** The cell's lines, each at most its column's width (a longer one would be cut). */
  lines: readonly string[];
  /** Colour for a line, applied after layout (the escape codes take no columns). */
  paint?: (line: string) => string;
}

export interface DrawOptions {
  /** Content width of each column. */
  widths: readonly number[];
  /** No borders: `key  value` lines (a record), trailing spaces removed. */
  bare?: boolean;
  /** A rule between rows (when some row takes several lines, or they run together). */
  ruled?: boolean;
}

const BARE_CHARS: Partial<Record<CliTable3.CharName, string>> = Object.fromEntries(
  (
    [
      'top',
      'top-mid',
      'top-left',
      'top-right',
      'bottom',
      'bottom-mid',
      'bottom-left',
      'bottom-right',
      'left',
      'left-mid',
      'mid',
      'mid-mid',
      'right',
      'right-mid',
      'middle',
    ] as const
  ).map((name) => [name, '']),
);

/** A cell as cli-table3 lays it out: each line a run of stand-ins as wide as the line. */
const standIn = (cell: DrawnCell): string => cell.lines.map((l) => STAND_IN.repeat(stringWidth(l))).join('\n');

/** `head`: the header row (ruled off from the body), if any. */
export function drawTable(
  head: readonly DrawnCell[] | undefined,
  rows: readonly (readonly DrawnCell[])[],
  opts: DrawOptions,
): string {
  const Table = load();
  const table = new Table({
    ...(head ? { head: head.map(standIn) } : {}),
    colWidths: opts.widths.map((w) => w + (opts.bare ? 3 : 2)),
    wordWrap: false,
    style: { head: [], border: [], compact: !opts.ruled, 'padding-left': opts.bare ? 0 : 1, 'padding-right': 1 },
    ...(opts.bare ? { chars: BARE_CHARS } : {}),
  });
  // Every non-empty line, in the order the layout shows it: row by row, line by line, left to right.
  const queue: string[] = [];
  for (const row of head ? [head, ...rows] : rows) {
    const height = Math.max(1, ...row.map((c) => c.lines.length));
    for (let i = 0; i < height; i++)
      for (const cell of row) {
        const line = cell.lines[i] ?? '';
        if (stringWidth(line) > 0) queue.push(cell.paint ? cell.paint(line) : line);
      }
  }
  for (const row of rows) table.push(row.map(standIn));
  let next = 0;
  const drawn = table.toString().replace(RUN, () => queue[next++] ?? '');
  return opts.bare
    ? drawn
        .split('\n')
        .map((l) => l.trimEnd())
        .join('\n')
    : drawn;
}
