import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './env.js';

/** Debian's poppler-utils (CI installs it): the PDF's text as any reader or search would see it. */
export const PDFTOTEXT = '/usr/bin/pdftotext';
export const havePoppler = existsSync(PDFTOTEXT);

function poppler(tool: 'pdftotext' | 'pdfinfo' | 'pdffonts', args: string[], pdf: Buffer): string {
  const { dir, cleanup } = tempDir('paygate-pdf-');
  try {
    const file = join(dir, 'doc.pdf');
    writeFileSync(file, pdf);
    const r = spawnSync(`/usr/bin/${tool}`, [...args, file, ...(tool === 'pdftotext' ? ['-'] : [])], {
      encoding: 'utf8',
    });
    if (r.status !== 0) throw new Error(`${tool} failed: ${r.stderr}`);
    return r.stdout;
  } finally {
    cleanup();
  }
}

/** Text in content-stream order (`-raw`): the order in which the renderer drew it. */
export const pdfText = (pdf: Buffer): string => poppler('pdftotext', ['-raw', '-enc', 'UTF-8'], pdf);
export const pdfInfo = (pdf: Buffer): string => poppler('pdfinfo', [], pdf);
/** The names of the fonts the PDF uses (a subset's tag, `ABCDEF+`, removed). */
export const pdfFontNames = (pdf: Buffer): string[] =>
  poppler('pdffonts', [], pdf)
    .split('\n')
    .slice(2)
    .map((l) => l.split(/\s+/)[0]?.replace(/^[A-Z]{6}\+/, '') ?? '')
    .filter((n) => n !== '');

const ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'" };

/** The text of the page's <article> (the document itself), as the browser shows it, without markup. */
export function articleText(html: string): string {
  const start = html.indexOf('<article>');
  const end = html.indexOf('</article>');
  if (start < 0 || end < 0) throw new Error('no <article> in the page');
  return html
    .slice(start, end)
    .replace(/<[^>]*>/g, ' ')
    .replace(/&(amp|lt|gt|quot|#39);/g, (e) => ENTITIES[e] ?? e);
}

/** Words in order: line breaks and spacing are the renderer's, the words and numbers are the content. */
export const words = (text: string): string[] => text.split(/\s+/).filter((w) => w !== '');
