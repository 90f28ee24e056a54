import { existsSync, readFileSync } from 'node:fs';
import * as fontkit from 'fontkit';

/**
 * Fonts of the PDF documents. A document whose text Windows-1252 covers (English and Western
 * European names and addresses) is set in the PDF standard font Helvetica: nothing to embed,
 * and about a tenth of the CPU of an embedded font. Any other document is set in DejaVu Sans
 * (Debian's fonts-dejavu-core, present wherever fontconfig is), which covers Latin, Greek and
 * Cyrillic, so a customer called Łukasz or Σοφία is printed as written; it is embedded as a
 * subset, which keeps the text selectable and searchable. What neither font can draw (without
 * DejaVu: beyond Windows-1252; with it: CJK, emoji) prints as "?" (docs/invoices.md).
 */

export interface PdfFonts {
  regular: string | Buffer;
  bold: string | Buffer;
  /** Characters the fonts cannot draw become "?" before drawing. */
  printable: (text: string) => string;
}

const DEJAVU_DIR = '/usr/share/fonts/truetype/dejavu';

/** Windows-1252's characters above Latin-1's control range: what Helvetica can draw besides ASCII and Latin-1. */
const CP1252_EXTRA = new Set('€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ');

function isWinAnsi(ch: string): boolean {
  const c = ch.codePointAt(0) ?? 0;
  return (c >= 0x20 && c <= 0x7e) || (c >= 0xa0 && c <= 0xff) || CP1252_EXTRA.has(ch);
}

function winAnsi(text: string): string {
  let out = '';
  for (const ch of text) out += isWinAnsi(ch) ? ch : '?';
  return out;
}

export const STANDARD_FONTS: PdfFonts = { regular: 'Helvetica', bold: 'Helvetica-Bold', printable: winAnsi };

let cached: PdfFonts | undefined;

/** Read once per process: the font files are ~700 KB each and never change while it runs. */
export function pdfFonts(dir = DEJAVU_DIR): PdfFonts {
  if (cached && dir === DEJAVU_DIR) return cached;
  const regular = `${dir}/DejaVuSans.ttf`;
  const bold = `${dir}/DejaVuSans-Bold.ttf`;
  let fonts: PdfFonts = STANDARD_FONTS;
  if (existsSync(regular) && existsSync(bold)) {
    const [r, b] = [readFileSync(regular), readFileSync(bold)];
    fonts = { regular: r, bold: b, printable: drawableIn([r, b]) };
  }
  if (dir === DEJAVU_DIR) cached = fonts;
  return fonts;
}

/**
 * Characters none of these fonts has a glyph for (CJK, emoji: DejaVu has none) become "?", as
 * they do with Helvetica: drawn as they are they would be empty boxes, and a PDF reader's text
 * would lose them without a trace (SPEC §17: the PDF says what the page says, as far as it can).
 */
function drawableIn(files: Buffer[]): (text: string) => string {
  const faces = files.map((f) => fontkit.create(f)).filter((f): f is fontkit.Font => 'hasGlyphForCodePoint' in f);
  const known = new Map<number, boolean>();
  const drawable = (cp: number): boolean => {
    let ok = known.get(cp);
    if (ok === undefined) {
      ok = faces.every((f) => f.hasGlyphForCodePoint(cp));
      known.set(cp, ok);
    }
    return ok;
  };
  return (text) => {
    let out = '';
    for (const ch of text) out += drawable(ch.codePointAt(0) ?? 0) || ch === '\n' ? ch : '?';
    return out;
  };
}

/** The fonts for a document with these texts: the standard font when it can print them all. */
export function fontsFor(texts: Iterable<string>): PdfFonts {
  for (const text of texts) for (const ch of text) if (!isWinAnsi(ch)) return pdfFonts();
  return STANDARD_FONTS;
}
