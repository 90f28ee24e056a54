import { existsSync, readFileSync } from 'node:fs';

/**
 * Fonts of the PDF documents. DejaVu Sans (Debian's fonts-dejavu-core, present wherever
 * fontconfig is) covers Latin, Greek and Cyrillic, so a customer called Łukasz or Σοφία is
 * printed as written; it is embedded as a subset, which keeps the text selectable and
 * searchable. Without it, PDFs fall back to the PDF standard font Helvetica, which needs no
 * file but only knows Windows-1252: other characters print as "?" (docs/invoices.md).
 */

export interface PdfFonts {
  regular: string | Buffer;
  bold: string | Buffer;
  /** Characters the fonts cannot draw become "?" before drawing (Helvetica only). */
  printable: (text: string) => string;
}

const DEJAVU_DIR = '/usr/share/fonts/truetype/dejavu';

/** Windows-1252's characters above Latin-1's control range: what Helvetica can draw besides ASCII and Latin-1. */
const CP1252_EXTRA = new Set('€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ');

function winAnsi(text: string): string {
  let out = '';
  for (const ch of text) {
    const c = ch.codePointAt(0) ?? 0;
    const ok = (c >= 0x20 && c <= 0x7e) || (c >= 0xa0 && c <= 0xff) || CP1252_EXTRA.has(ch);
    out += ok ? ch : '?';
  }
  return out;
}

let cached: PdfFonts | undefined;

/** Read once per process: the font files are ~700 KB each and never change while it runs. */
export function pdfFonts(dir = DEJAVU_DIR): PdfFonts {
  if (cached && dir === DEJAVU_DIR) return cached;
  const regular = `${dir}/DejaVuSans.ttf`;
  const bold = `${dir}/DejaVuSans-Bold.ttf`;
  const fonts: PdfFonts =
    existsSync(regular) && existsSync(bold)
      ? { regular: readFileSync(regular), bold: readFileSync(bold), printable: (t) => t }
      : { regular: 'Helvetica', bold: 'Helvetica-Bold', printable: winAnsi };
  if (dir === DEJAVU_DIR) cached = fonts;
  return fonts;
}
