import { afterAll, describe, expect, it } from 'vitest';
import { type DocumentLayout, layoutCreditNote, layoutInvoice } from '../../src/domain/document-layout.js';
import { pdfFonts } from '../../src/documents/pdf-fonts.js';
import { renderPdf } from '../../src/documents/pdf.js';
import {
  closePdfRenderer,
  MAX_QUEUED_PDFS,
  PdfQueueFullError,
  renderPdfOffThread,
} from '../../src/documents/pdf-renderer.js';
import { documentPage } from '../../src/http/pages/document-view.js';
import { sampleCreditNote, sampleInvoice } from '../helpers/documents.js';
import { articleText, havePoppler, pdfFontNames, pdfInfo, pdfText, words } from '../helpers/pdf-text.js';

if (!havePoppler && process.env.CI !== 'true')
  console.warn('PDF text checks skipped: pdftotext not found (apt-get install poppler-utils; CI installs it)');

const haveDejaVu = typeof pdfFonts().regular !== 'string';
/** Helvetica, the PDF standard font: what a machine without fonts-dejavu-core renders with. */
const HELVETICA = pdfFonts('/nonexistent');

const html = (layout: DocumentLayout): string => documentPage(layout, { nonce: 'n', pdfUrl: '/invoice/t.pdf' });

describe.skipIf(!havePoppler && process.env.CI !== 'true')('invoice and credit note PDFs (SPEC §17)', () => {
  afterAll(closePdfRenderer);

  it.skipIf(!haveDejaVu)(
    'holds exactly the words and numbers of the HTML page, names in any Latin script',
    async () => {
      const layout = layoutInvoice(sampleInvoice(), 'Europe/Berlin');
      const pdf = await renderPdf(layout);
      expect(words(pdfText(pdf))).toEqual(words(articleText(html(layout))));
      expect(pdfFontNames(pdf)).toEqual(['DejaVuSans-Bold', 'DejaVuSans']);
    },
  );

  it.skipIf(!haveDejaVu)('prints Greek and Cyrillic names as written', async () => {
    const layout = layoutInvoice(sampleInvoice({ customer: { name: 'Σοφία Иванова', addressLines: [] } }), 'UTC');
    expect(pdfText(await renderPdf(layout)).split('\n')).toContain('Σοφία Иванова');
  });

  it('sets a document that Windows-1252 covers in the standard font, embedding nothing', async () => {
    const layout = layoutInvoice(sampleInvoice({ customer: { name: 'Zoë Müller', addressLines: [] } }), 'UTC');
    expect(pdfFontNames(await renderPdf(layout))).toEqual(['Helvetica-Bold', 'Helvetica']);
  });

  it('reads its lines, totals and card as the layout has them', async () => {
    const layout = layoutInvoice(sampleInvoice({ customer: { name: 'Zoë Müller', addressLines: [] } }), 'UTC');
    const lines = pdfText(await renderPdf(layout, { fonts: HELVETICA })).split('\n');
    expect(lines).toContain('T-shirt 2 19.99 USD 39.98 USD');
    expect(lines).toContain('Mug 1 1,234.50 USD 1,234.50 USD');
    expect(lines).toContain('Other charges 25.52 USD');
    expect(lines).toContain('Total paid 1,300.00 USD');
    expect(lines).toContain('Paid with VISA ••4242');
    expect(lines).toContain('Invoice number INV-000042');
    expect(lines).toContain('Zoë Müller');
  });

  it('holds the words of the HTML with the standard font too, for Western European text', async () => {
    const layout = layoutInvoice(sampleInvoice({ customer: { name: 'Zoë Müller', addressLines: [] } }), 'UTC');
    const text = pdfText(await renderPdf(layout, { fonts: HELVETICA }));
    expect(words(text)).toEqual(words(articleText(html(layout))));
  });

  it('is A4', async () => {
    const info = pdfInfo(await renderPdf(layoutInvoice(sampleInvoice(), 'UTC'), { fonts: HELVETICA }));
    expect(info).toMatch(/Page size:\s+595\.28 x 841\.89 pts \(A4\)/);
    expect(info).toMatch(/Title:\s+Invoice INV-000042 — Acme Shop/);
  });

  it('continues a long invoice on further pages, each under the column headings', async () => {
    const inv = sampleInvoice({
      lines: Array.from({ length: 120 }, (_, i) => ({
        description: `Part ${i + 1}`,
        quantity: 1,
        unitAmount: 100,
        amount: 100,
      })),
      total: 12_000,
      customer: { name: 'Zoë Müller', addressLines: [] },
    });
    const layout = layoutInvoice(inv, 'UTC');
    const pages = pdfText(await renderPdf(layout, { fonts: HELVETICA }))
      .split('\f')
      .filter((p) => p.trim() !== '');
    expect(pages.length).toBeGreaterThan(1);
    const heading = 'Description Qty Unit price Amount';
    const tablePages = pages.slice(1).filter((p) => p.includes('Part '));
    expect(tablePages.length).toBeGreaterThan(0);
    for (const page of tablePages) expect(page.split('\n')[0]).toBe(heading);
    const continued = pages.map((p, i) => (i > 0 && p.startsWith(heading) ? p.slice(heading.length) : p)).join('\n');
    expect(words(continued)).toEqual(words(articleText(html(layout))));
    expect(continued).toContain('Part 120 1 1.00 USD 1.00 USD');
  });

  it('holds exactly the words of a credit note’s page', async () => {
    const layout = layoutCreditNote(sampleCreditNote({ customer: { addressLines: [], email: 'a@b.test' } }), 'UTC');
    const text = pdfText(await renderPdf(layout, { fonts: HELVETICA }));
    expect(words(text)).toEqual(words(articleText(html(layout))));
    expect(text.split('\n')).toContain('Total credited 39.98 USD');
  });

  it('prints markup in names as text, where the page escapes it', async () => {
    const layout = layoutInvoice(sampleInvoice({ customer: { name: '<b>Bob</b> & "Co"', addressLines: [] } }), 'UTC');
    const page = html(layout);
    expect(page).not.toContain('<b>Bob</b>');
    expect(page).toContain('&lt;b&gt;Bob&lt;/b&gt; &amp; &quot;Co&quot;');
    expect(pdfText(await renderPdf(layout, { fonts: HELVETICA })).split('\n')).toContain('<b>Bob</b> & "Co"');
  });

  it('prints characters the standard font lacks as "?" rather than as wrong letters', async () => {
    const layout = layoutInvoice(sampleInvoice({ customer: { name: 'Łukasz Żółw', addressLines: [] } }), 'UTC');
    expect(pdfText(await renderPdf(layout, { fonts: HELVETICA })).split('\n')).toContain('?ukasz ?ó?w');
  });

  it.skipIf(!haveDejaVu)('prints what DejaVu cannot draw (CJK, emoji) as "?", never as empty boxes', async () => {
    const layout = layoutInvoice(sampleInvoice({ customer: { name: 'Łukasz 日本 📦', addressLines: [] } }), 'UTC');
    const pdf = await renderPdf(layout);
    expect(pdfFontNames(pdf)).toEqual(['DejaVuSans-Bold', 'DejaVuSans']);
    expect(pdfText(pdf).split('\n')).toContain('Łukasz ?? ?');
  });

  it('renders off the event loop the same document as in it', async () => {
    const layout = layoutInvoice(sampleInvoice(), 'UTC');
    const creationDate = new Date(Date.UTC(2026, 0, 5));
    const [offThread, inThread] = await Promise.all([
      renderPdfOffThread(layout, { creationDate }),
      renderPdf(layout, { creationDate }),
    ]);
    expect(pdfText(offThread)).toBe(pdfText(inThread));
  });

  it(`refuses a render beyond ${MAX_QUEUED_PDFS} queued, at once, instead of queueing without bound`, async () => {
    const layout = layoutInvoice(sampleInvoice(), 'UTC');
    const queued = Array.from({ length: MAX_QUEUED_PDFS }, () => renderPdfOffThread(layout));
    await expect(renderPdfOffThread(layout)).rejects.toBeInstanceOf(PdfQueueFullError);
    // Stopping the worker answers every queued render (with an error) rather than leaving it hanging.
    await closePdfRenderer();
    const settled = await Promise.allSettled(queued);
    expect(settled).toHaveLength(MAX_QUEUED_PDFS);
    const again = await renderPdfOffThread(layout);
    expect(pdfText(again)).toContain('Total paid 1,300.00 USD');
  });
});
