import { describe, expect, it } from 'vitest';
import { visible } from '../../src/cli/visible.js';

describe('visible: outside text cannot drive the terminal', () => {
  it('C0 controls, DEL and C1 controls become \\xHH; newline, tab and CR their usual escapes', () => {
    expect(visible('a\x1b[31mb\x07c\x00d\x7fe\x9bf\x85g')).toBe('a\\x1b[31mb\\x07c\\x00d\\x7fe\\x9bf\\x85g');
    expect(visible('one\ntwo\tthree\rfour')).toBe('one\\ntwo\\tthree\\rfour');
  });

  it('invisible Unicode that reorders or hides text is shown as \\u{…}', () => {
    expect(visible('abc\u202edcba')).toBe('abc\\u{202e}dcba');
    expect(visible('x\u200by\u2066z\ufeff')).toBe('x\\u{200b}y\\u{2066}z\\u{feff}');
  });

  it('ordinary text, accents and emoji are untouched', () => {
    const text = 'Café Crème — 日本語 🙂 order #42 "quoted" \\ backslash';
    expect(visible(text)).toBe(text);
  });
});
