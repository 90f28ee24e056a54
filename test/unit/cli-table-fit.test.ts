import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { drawTable } from '../../src/cli/table-draw.js';
import { fitTable, tableOverhead, textWidth, wrapWords, type FitColumn } from '../../src/cli/table-fit.js';

const col = (header: string, cells: string[], more: Partial<FitColumn> = {}): FitColumn => ({
  header,
  cells,
  wraps: false,
  ...more,
});

describe('widths are what the terminal draws', () => {
  it('wide characters take two columns, combining marks and joiners none', () => {
    expect(textWidth('日本語')).toBe(6);
    expect(textWidth('Cafe\u0301')).toBe(4);
    expect(textWidth('ที่')).toBe(1);
    expect(textWidth('👩‍💻')).toBe(2);
    expect(textWidth('one\nthree')).toBe(5);
  });
});

describe('wrapWords: free text breaks at spaces only', () => {
  it('breaks between words', () => {
    expect(wrapWords('a quick brown fox', 7)).toEqual(['a quick', 'brown', 'fox']);
  });
  it('a word wider than the line stays whole on its own line', () => {
    expect(wrapWords('see https://shop.example/orders/42 now', 10)).toEqual([
      'see',
      'https://shop.example/orders/42',
      'now',
    ]);
  });
  it('measures wide characters as two columns', () => {
    expect(wrapWords('日本 日本 日本', 9)).toEqual(['日本 日本', '日本']);
  });
});

describe('fitTable: leave out the least important columns before cutting anything', () => {
  const id = col('id', ['txn_01M84BJGBQPHD2J0EPHJ74EGZS']);
  const status = col('status', ['300000 FAILED']);
  const created = col('created', ['2026-11-26 08:37:54'], { drop: 1 });
  const card = col('card', ['424242******4242'], { drop: 2 });

  it('everything that fits is shown whole', () => {
    const fit = fitTable([id, status, created, card], 200, false);
    expect(fit.shown).toEqual([0, 1, 2, 3]);
    expect(fit.widths).toEqual([30, 13, 19, 16]);
    expect(fit.leftOut).toEqual([]);
  });

  it('the highest drop rank goes first, then the next', () => {
    const needAll = 30 + 13 + 19 + 16 + tableOverhead(4);
    expect(fitTable([id, status, created, card], needAll - 1, false).leftOut).toEqual([3]);
    expect(fitTable([id, status, created, card], 60, false).leftOut).toEqual([2, 3]);
  });

  it('a narrower column left out earlier comes back when leaving out a wider one made room', () => {
    const reason = col('reason', ['card_declined'], { drop: 2 });
    const time = col('created', ['2026-11-26 08:37:54'], { drop: 1 });
    const fit = fitTable([id, status, reason, time], 30 + 13 + 13 + tableOverhead(3), false);
    expect(fit.shown).toEqual([0, 1, 2]);
    expect(fit.leftOut).toEqual([3]);
  });

  it('columns without a rank stay, even when the table is then wider than the terminal', () => {
    const fit = fitTable([id, status, created], 30, false);
    expect(fit.shown).toEqual([0, 1]);
    expect(fit.widths).toEqual([30, 13]);
  });

  it('--wide leaves nothing out', () => {
    expect(fitTable([id, status, created, card], 40, true).leftOut).toEqual([]);
  });

  it('free text narrows to its longest word, never less; the room left widens it again', () => {
    const text = col('about', ['a plan for people who like long sentences'], { wraps: true });
    expect(fitTable([id, text], 30 + 9 + tableOverhead(2), false).widths).toEqual([30, 9]);
    expect(fitTable([id, text], 30 + 20 + tableOverhead(2), false).widths).toEqual([30, 20]);
  });

  it('a header wraps at its spaces rather than widening a column', () => {
    const fit = fitTable([col('next billing', ['2026-11-26 08:37:54']), col('paid', ['1'])], 40, false);
    expect(fit.widths).toEqual([19, 4]);
  });
});

describe('drawTable: cli-table3 borders, the terminal’s widths', () => {
  it('every line of a table with wide, combining and Thai text is equally wide', () => {
    const cells = ['日本語の店', 'Cafe\u0301 Crème', 'ร้านค้าที่ดี', '👩‍💻 shop'];
    const widths = [Math.max(...cells.map(textWidth)), 4];
    const out = drawTable(
      [{ lines: ['name'] }, { lines: ['n'] }],
      cells.map((c, i) => [{ lines: [c] }, { lines: [String(i)] }]),
      { widths },
    );
    const lines = out.split('\n');
    expect(new Set(lines.map((l) => stringWidth(l))).size).toBe(1);
    for (const c of cells) expect(out).toContain(c);
  });

  it('a bare record has no borders and no trailing spaces', () => {
    const out = drawTable(
      undefined,
      [
        [{ lines: ['status'] }, { lines: ['ACTIVE'] }],
        [{ lines: ['planDescription'] }, { lines: ['a long', 'text'] }],
      ],
      { widths: [15, 6], bare: true },
    );
    expect(out.split('\n')).toEqual(['status            ACTIVE', 'planDescription   a long', '                  text']);
  });
});
