/**
 * Fitting text into a terminal: ids shortened in the middle (both ends stay recognisable and
 * searchable), other text wrapped at word boundaries. Widths count UTF-16 code units, which is
 * exact for everything paygate prints itself and close enough for outside text.
 */

/** `txn_01HXYZ…QF39` — the head and the tail of an id. */
export function truncateMiddle(text: string, width: number): string {
  if (text.length <= width) return text;
  if (width <= 1) return '…'.slice(0, width);
  const tail = Math.floor((width - 1) / 2);
  const head = width - 1 - tail;
  return `${text.slice(0, head)}…${text.slice(text.length - tail)}`;
}

/** Lines of at most `width`, breaking at spaces, a word longer than a line broken where it must. */
export function wrap(text: string, width: number): string[] {
  if (width < 1) return [text];
  const lines: string[] = [];
  for (const paragraph of text.split('\n')) {
    let line = '';
    for (const word of paragraph.split(' ')) {
      let w = word;
      const candidate = line === '' ? w : `${line} ${w}`;
      if (candidate.length <= width) {
        line = candidate;
        continue;
      }
      if (line !== '') lines.push(line);
      while (w.length > width) {
        lines.push(w.slice(0, width));
        w = w.slice(width);
      }
      line = w;
    }
    lines.push(line);
  }
  return lines;
}

export interface ColumnFit {
  /** Content width (without padding). */
  width: number;
  /** Shortened in the middle instead of wrapped. */
  id: boolean;
}

/** Each table column adds a border and a space either side; the table one more border. */
const OVERHEAD_PER_COLUMN = 3;

/**
 * Column widths for a table of `cells` (header first) within `total` columns of terminal: every
 * column its natural width if that fits; otherwise ids give way first (shortened in the middle,
 * down to 13 characters: prefix, head and tail stay), then text wraps down to its longest word,
 * and only then are words broken.
 */
export function fitColumns(cells: string[][], ids: boolean[], total: number): ColumnFit[] {
  const n = ids.length;
  const column = (c: number): string[] => cells.map((row) => row[c] ?? '');
  const longest = (texts: string[], split: RegExp): number =>
    Math.max(1, ...texts.flatMap((t) => t.split(split).map((w) => w.length)));
  const natural = ids.map((_, c) => longest(column(c), /\n/));
  const word = ids.map((_, c) => Math.min(16, longest(column(c), /[\n ]/)));
  const widths = [...natural];
  const budget = total - OVERHEAD_PER_COLUMN * n - 1;
  let sum = widths.reduce((a, b) => a + b, 0);
  const shrink = (floorOf: (c: number) => number, only?: (c: number) => boolean): void => {
    while (sum > budget) {
      let widest = -1;
      for (let c = 0; c < n; c++) {
        if (only && !only(c)) continue;
        if ((widths[c] ?? 0) > floorOf(c) && (widest < 0 || (widths[c] ?? 0) > (widths[widest] ?? 0))) widest = c;
      }
      if (widest < 0) return;
      widths[widest] = (widths[widest] ?? 1) - 1;
      sum--;
    }
  };
  const header = cells[0] ?? [];
  shrink(
    (c) => Math.min(natural[c] ?? 1, Math.max(13, (header[c] ?? '').length)),
    (c) => ids[c] ?? false,
  );
  shrink(
    (c) => Math.min(natural[c] ?? 1, word[c] ?? 1),
    (c) => !ids[c],
  );
  shrink((c) => Math.min(natural[c] ?? 1, ids[c] ? 7 : 4));
  return widths.map((width, c) => ({ width, id: ids[c] ?? false }));
}

/** The cell's lines at its column's width. */
export function fitCell(text: string, fit: ColumnFit): string {
  if (fit.id && !text.includes(' ')) return truncateMiddle(text, fit.width);
  return wrap(text, fit.width).join('\n');
}
