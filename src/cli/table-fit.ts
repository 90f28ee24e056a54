import stringWidth from 'string-width';

/**
 * How a table fits a terminal (SPEC §12): nothing is ever cut. Ids, codes, statuses, times and
 * amounts keep their whole width on one line; only free text wraps, and only at spaces. When the
 * columns do not fit, the least important are left out first; what is left out is reported so the
 * table can say so. Widths are the terminal's (string-width: wide and combining characters).
 */

/** Columns a line of text takes on a terminal; the widest line of a multi-line text. */
export function textWidth(text: string): number {
  return Math.max(0, ...text.split('\n').map((line) => stringWidth(line)));
}

/** The widest word: what a wrapped text needs at least. */
function widestWord(text: string): number {
  return Math.max(0, ...text.split(/[\n ]/).map((word) => stringWidth(word)));
}

/**
 * `text` as lines of at most `width` columns, broken only at spaces. A word wider than `width`
 * stays whole on a line of its own: it is an id or a link, and a cut one would be wrong.
 */
export function wrapWords(text: string, width: number): string[] {
  const lines: string[] = [];
  for (const paragraph of text.split('\n')) {
    let line = '';
    for (const word of paragraph.split(' ')) {
      const candidate = line === '' ? word : `${line} ${word}`;
      if (line === '' || stringWidth(candidate) <= width) line = candidate;
      else {
        lines.push(line);
        line = word;
      }
    }
    lines.push(line);
  }
  return lines;
}

export interface FitColumn {
  header: string;
  cells: readonly string[];
  /** Free text: may wrap at spaces. Everything else stays on one line, whole. */
  wraps: boolean;
  /** Left out when the table does not fit: higher first. Undefined: always shown. */
  drop?: number;
}

export interface TableFit {
  /** Indexes of the columns shown, in their order. */
  shown: number[];
  /** Content width of each shown column (padding and borders excluded). */
  widths: number[];
  /** Indexes of the columns left out to fit, in their order. */
  leftOut: number[];
}

/** A bordered table adds a border and a space either side of each column, and one more border. */
export const tableOverhead = (columns: number): number => 3 * columns + 1;

/** The least a column needs: its longest unbreakable piece (a header wraps at its spaces). */
function least(c: FitColumn): number {
  const header = widestWord(c.header);
  const body = c.wraps ? Math.max(0, ...c.cells.map(widestWord)) : Math.max(0, ...c.cells.map(textWidth));
  return Math.max(1, header, body);
}

/** What a column would take with nothing wrapped. */
function natural(c: FitColumn): number {
  return Math.max(1, textWidth(c.header), ...c.cells.map(textWidth));
}

/**
 * The columns shown within `total` terminal columns and their widths. `wide`: every column is
 * shown even if the table is then wider than the terminal.
 */
export function fitTable(columns: readonly FitColumn[], total: number, wide: boolean): TableFit {
  const mins = columns.map(least);
  const wants = columns.map(natural);
  const shown = columns.map((_, i) => i);
  const need = (): number => shown.reduce((sum, i) => sum + (mins[i] ?? 0), tableOverhead(shown.length));
  while (!wide && need() > total) {
    let drop = -1;
    for (const i of shown) {
      const rank = columns[i]?.drop;
      if (rank !== undefined && (drop < 0 || rank > (columns[drop]?.drop ?? 0))) drop = i;
    }
    if (drop < 0) break;
    shown.splice(shown.indexOf(drop), 1);
  }
  // Leaving out a wide column can make room for a narrower one left out before it: the most
  // important of those that now fit come back.
  const out = columns
    .map((_, i) => i)
    .filter((i) => !shown.includes(i))
    .sort((a, b) => (columns[a]?.drop ?? 0) - (columns[b]?.drop ?? 0));
  for (const i of out) {
    if (need() + (mins[i] ?? 0) + 3 > total) continue;
    shown.push(i);
    shown.sort((a, b) => a - b);
  }
  const widths = shown.map((i) => mins[i] ?? 1);
  // The room left goes to what is wrapped, a column at a time to the one that still wraps most.
  let room = total - need();
  while (room > 0) {
    let best = -1;
    let most = 0;
    shown.forEach((i, k) => {
      const short = (wants[i] ?? 0) - (widths[k] ?? 0);
      if (short > most) {
        most = short;
        best = k;
      }
    });
    if (best < 0) break;
    widths[best] = (widths[best] ?? 0) + 1;
    room--;
  }
  return { shown, widths, leftOut: columns.map((_, i) => i).filter((i) => !shown.includes(i)) };
}
