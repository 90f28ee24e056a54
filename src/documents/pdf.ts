import PDFDocument from 'pdfkit';
import type { DocumentLayout, LabelledValue, PartyBlock } from '../domain/document-layout.js';
import { fontsFor, type PdfFonts } from './pdf-fonts.js';

/**
 * The PDF of a document (SPEC §17): A4, real text (selectable, searchable, read by pdftotext),
 * drawn from the same layout as the HTML page and nothing else, so the two hold the same
 * words and numbers. Rendered in the process with pdfkit; no browser, no service.
 */

const A4 = { width: 595.28, height: 841.89 };
const MARGIN = 50;
const CONTENT = A4.width - 2 * MARGIN;
const BOTTOM = A4.height - MARGIN;
/** Description, quantity, unit price, amount. */
const COLS = [CONTENT - 50 - 95 - 100, 50, 95, 100] as const;
const MUTED = '#555555';
const RULE = '#bbbbbb';

export interface RenderPdfOptions {
  /** Fixed document dates make the bytes reproducible (tests); default: the time of rendering. */
  creationDate?: Date;
  /** Default: chosen by the document's text (pdf-fonts.ts). */
  fonts?: PdfFonts;
}

function texts(l: DocumentLayout): string[] {
  const blocks = [l.seller, l.buyer].flatMap((b) => (b ? [b.title, ...b.lines] : []));
  const pairs = [...l.meta, ...l.totals].flatMap((p) => [p.label, p.value]);
  return [l.title, l.heading, l.number, ...blocks, ...pairs, ...l.table.columns, ...l.table.rows.flat(), ...l.notes];
}

type Doc = PDFKit.PDFDocument;

export function renderPdf(layout: DocumentLayout, opts: RenderPdfOptions = {}): Promise<Buffer> {
  const fonts = opts.fonts ?? fontsFor(texts(layout));
  const doc = new PDFDocument({
    size: 'A4',
    margin: MARGIN,
    info: { Title: fonts.printable(layout.title), Creator: 'paygate', CreationDate: opts.creationDate ?? new Date() },
  });
  doc.registerFont('regular', fonts.regular);
  doc.registerFont('bold', fonts.bold);
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('data', (c: Buffer) => chunks.push(c));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  draw(doc, layout, fonts.printable);
  doc.end();
  return done;
}

function draw(doc: Doc, layout: DocumentLayout, p: (t: string) => string): void {
  let y = MARGIN;
  doc
    .font('bold')
    .fontSize(20)
    .fillColor('black')
    .text(p(layout.heading), MARGIN, y, { width: CONTENT / 2 });
  doc.fontSize(12).text(p(layout.number), MARGIN + CONTENT / 2, y + 6, { width: CONTENT / 2, align: 'right' });
  y += 44;

  const colWidth = CONTENT / 2 - 10;
  const sellerEnd = party(doc, layout.seller, MARGIN, y, colWidth, p);
  const buyerEnd = layout.buyer ? party(doc, layout.buyer, MARGIN + CONTENT / 2 + 10, y, colWidth, p) : y;
  y = Math.max(sellerEnd, buyerEnd) + 18;

  y = pairs(doc, layout.meta, y, p);
  y += 16;
  y = table(doc, layout, y, p);
  // The total and the notes stay together: a total alone at the top of a page reads as a new document.
  y = room(doc, y + 10, 20 * layout.totals.length + 14 * layout.notes.length + 12);
  y = totals(doc, layout.totals, y, p);
  y += 12;
  doc.font('regular').fontSize(9).fillColor(MUTED);
  for (const note of layout.notes) {
    y = room(doc, y, doc.heightOfString(p(note), { width: CONTENT }));
    doc.text(p(note), MARGIN, y, { width: CONTENT });
    y = doc.y + 2;
  }
}

/** A new page when `height` does not fit below `y`; returns where to draw. */
function room(doc: Doc, y: number, height: number): number {
  if (y + height <= BOTTOM) return y;
  doc.addPage();
  return MARGIN;
}

function party(doc: Doc, block: PartyBlock, x: number, y: number, width: number, p: (t: string) => string): number {
  doc.font('bold').fontSize(9).fillColor(MUTED).text(p(block.title), x, y, { width });
  doc.font('regular').fontSize(10).fillColor('black');
  let at = doc.y + 2;
  for (const line of block.lines) {
    doc.text(p(line), x, at, { width });
    at = doc.y;
  }
  return at;
}

function pairs(doc: Doc, items: readonly LabelledValue[], y: number, p: (t: string) => string): number {
  const labelWidth = 120;
  let at = y;
  for (const { label, value } of items) {
    const h = doc
      .font('regular')
      .fontSize(10)
      .heightOfString(p(value), { width: CONTENT - labelWidth });
    at = room(doc, at, h);
    doc.fillColor(MUTED).text(p(label), MARGIN, at, { width: labelWidth - 8 });
    doc.fillColor('black').text(p(value), MARGIN + labelWidth, at, { width: CONTENT - labelWidth });
    at = Math.max(doc.y, at + h) + 2;
  }
  return at;
}

function row(doc: Doc, cells: readonly string[], y: number, p: (t: string) => string): number {
  let x = MARGIN;
  let bottom = y;
  cells.forEach((cell, i) => {
    const width = COLS[i] ?? 0;
    if (cell !== '') {
      doc.text(p(cell), x + (i === 0 ? 0 : 6), y, {
        width: width - 6,
        align: i === 0 ? 'left' : 'right',
      });
      bottom = Math.max(bottom, doc.y);
    }
    x += width;
  });
  return bottom;
}

function rowHeight(doc: Doc, cells: readonly string[], p: (t: string) => string): number {
  return Math.max(...cells.map((c, i) => (c === '' ? 0 : doc.heightOfString(p(c), { width: (COLS[i] ?? 0) - 6 }))));
}

function rule(doc: Doc, y: number): void {
  doc
    .moveTo(MARGIN, y)
    .lineTo(MARGIN + CONTENT, y)
    .lineWidth(0.5)
    .strokeColor(RULE)
    .stroke();
}

function table(doc: Doc, layout: DocumentLayout, y: number, p: (t: string) => string): number {
  const header = (at: number): number => {
    doc.font('bold').fontSize(9).fillColor(MUTED);
    const end = row(doc, layout.table.columns, at, p) + 4;
    rule(doc, end);
    doc.font('regular').fontSize(10).fillColor('black');
    return end + 6;
  };
  let at = header(room(doc, y, 60));
  for (const cells of layout.table.rows) {
    const h = rowHeight(doc, cells, p);
    if (at + h > BOTTOM) {
      doc.addPage();
      at = header(MARGIN);
    }
    at = row(doc, cells, at, p) + 4;
    rule(doc, at);
    at += 6;
  }
  return at;
}

function totals(doc: Doc, items: readonly LabelledValue[], y: number, p: (t: string) => string): number {
  let at = y;
  doc.font('bold').fontSize(12).fillColor('black');
  for (const { label, value } of items) {
    doc.text(p(label), MARGIN, at, { width: CONTENT - 160, align: 'right' });
    doc.text(p(value), MARGIN + CONTENT - 150, at, { width: 150, align: 'right' });
    at = doc.y + 4;
  }
  return at;
}
