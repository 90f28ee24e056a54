import type { DocumentLayout, LabelledValue, PartyBlock } from '../../domain/document-layout.js';
import { esc } from './html.js';

/**
 * The hosted document page (`/invoice/{token}`, SPEC §17): the layout of domain/document-layout.ts
 * as HTML. Self-contained (one nonce'd style element, no script, no image, no font), readable
 * on a phone, and printable: the print stylesheet drops the page chrome and keeps the document.
 * Every text of the layout appears once, inside <article>, in the layout's order — the PDF
 * draws the same texts, which test/e2e checks with pdftotext.
 */

const CSS = `
:root{color-scheme:light dark;--bg:#f4f5f7;--card:#fff;--text:#1d2330;--muted:#5d6675;--line:#d9dde3;--accent:#2f5bea}
@media (prefers-color-scheme:dark){:root{--bg:#12151b;--card:#1b2029;--text:#e8ebf0;--muted:#a0a8b5;--line:#2e3542;--accent:#8ea6ff}}
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:var(--bg);color:var(--text)}
main{max-width:820px;margin:0 auto;padding:24px 16px}
article{background:var(--card);border:1px solid var(--line);border-radius:14px;padding:28px}
article *{overflow-wrap:anywhere}
header{display:flex;justify-content:space-between;gap:16px;flex-wrap:wrap;align-items:baseline;margin:0 0 20px}
h1{font-size:1.5rem;margin:0}
.number{font-weight:600;margin:0}
.parties{display:grid;grid-template-columns:repeat(auto-fit,minmax(220px,1fr));gap:16px 28px;margin:0 0 20px}
h2{font-size:.8rem;text-transform:uppercase;letter-spacing:.06em;color:var(--muted);margin:0 0 4px}
.parties p{margin:0}
dl.meta{display:grid;grid-template-columns:max-content 1fr;gap:2px 16px;margin:0 0 20px}
dl.meta dt{color:var(--muted)}dl.meta dd{margin:0}
table{width:100%;border-collapse:collapse;margin:0 0 16px}
th{text-align:left;font-size:.8rem;text-transform:uppercase;letter-spacing:.06em;color:var(--muted);padding:6px 8px 6px 0;border-bottom:1px solid var(--line)}
td{padding:8px 8px 8px 0;border-bottom:1px solid var(--line);vertical-align:top}
th.n,td.n{text-align:right;white-space:nowrap;padding-right:0;padding-left:8px}
dl.totals{display:grid;grid-template-columns:1fr max-content;gap:4px 16px;margin:0 0 16px;font-weight:650;font-size:1.1rem}
dl.totals dt{text-align:right}dl.totals dd{margin:0;text-align:right}
.notes{color:var(--muted);margin:0}
.actions{margin:16px 0 0;display:flex;gap:16px;flex-wrap:wrap}
.actions a{color:var(--accent)}
@media (max-width:560px){
article{padding:18px}
thead{display:none}
tr{display:grid;grid-template-columns:auto minmax(0,1fr) auto;gap:0 8px;border-bottom:1px solid var(--line);padding:8px 0}
td,td.n{border:0;padding:0}
td.d{grid-column:1/-1;font-weight:560}
td.q,td.u{color:var(--muted);text-align:left;white-space:normal}
td.q:not(:empty)::before{content:"Qty "}
td.u:not(:empty)::before{content:"× "}
td.a{text-align:right}
}
@media print{
:root{--bg:#fff;--card:#fff;--text:#000;--muted:#444;--line:#999}
body{font-size:11pt;background:#fff}
main{max-width:none;padding:0}
article{border:0;border-radius:0;padding:0}
.actions,.foot{display:none}
tr{break-inside:avoid}
@page{size:A4;margin:18mm}
}
.foot{color:var(--muted);font-size:.8rem;text-align:center;margin-top:14px}
`;

const lines = (ls: readonly string[]): string => ls.map(esc).join('<br>');

function party(block: PartyBlock | undefined): string {
  if (!block) return '';
  return `<section><h2>${esc(block.title)}</h2><p>${lines(block.lines)}</p></section>`;
}

function pairs(cls: string, items: readonly LabelledValue[]): string {
  return `<dl class="${cls}">${items.map((i) => `<dt>${esc(i.label)}</dt><dd>${esc(i.value)}</dd>`).join('')}</dl>`;
}

/** The document itself: what the PDF holds too. */
export function documentArticle(doc: DocumentLayout): string {
  const [dCol, qCol, uCol, aCol] = doc.table.columns;
  const head = `<tr><th scope="col">${esc(dCol)}</th><th scope="col" class="n">${esc(qCol)}</th><th scope="col" class="n">${esc(uCol)}</th><th scope="col" class="n">${esc(aCol)}</th></tr>`;
  const rows = doc.table.rows
    .map(
      ([d, q, u, a]) =>
        `<tr><td class="d">${esc(d)}</td><td class="n q">${esc(q)}</td><td class="n u">${esc(u)}</td><td class="n a">${esc(a)}</td></tr>`,
    )
    .join('');
  return `<article>
<header><h1>${esc(doc.heading)}</h1><p class="number">${esc(doc.number)}</p></header>
<div class="parties">${party(doc.seller)}${party(doc.buyer)}</div>
${pairs('meta', doc.meta)}
<table><thead>${head}</thead><tbody>${rows}</tbody></table>
${pairs('totals', doc.totals)}
${doc.notes.map((n) => `<p class="notes">${esc(n)}</p>`).join('')}
</article>`;
}

export interface DocumentPageOptions {
  nonce: string;
  /** Link to the same document as PDF. */
  pdfUrl?: string;
}

export function documentPage(doc: DocumentLayout, opts: DocumentPageOptions): string {
  const pdf = opts.pdfUrl ? `<a href="${esc(opts.pdfUrl)}" download>Download PDF</a>` : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="no-referrer"><meta name="robots" content="noindex"><title>${esc(doc.title)}</title><style nonce="${esc(opts.nonce)}">${CSS}</style></head>
<body><main>${documentArticle(doc)}
<p class="actions">${pdf}</p><p class="foot">Secured by paygate</p></main></body></html>`;
}
