import { parentPort } from 'node:worker_threads';
import type { DocumentLayout } from '../domain/document-layout.js';
import { renderPdf } from './pdf.js';

/** The PDF worker's side (pdf-renderer.ts): one job at a time, answered by its id. */

export interface PdfJob {
  id: number;
  layout: DocumentLayout;
  creationDate?: number;
}

export type PdfAnswer = { id: number; ok: true; pdf: Uint8Array } | { id: number; ok: false; message: string };

const port = parentPort;
if (port) {
  port.on('message', (job: PdfJob) => {
    const opts = job.creationDate === undefined ? {} : { creationDate: new Date(job.creationDate) };
    renderPdf(job.layout, opts).then(
      (pdf) => {
        const bytes = new Uint8Array(pdf.buffer, pdf.byteOffset, pdf.byteLength);
        port.postMessage({ id: job.id, ok: true, pdf: bytes } satisfies PdfAnswer);
      },
      (e: unknown) =>
        port.postMessage({
          id: job.id,
          ok: false,
          message: e instanceof Error ? e.message : String(e),
        } satisfies PdfAnswer),
    );
  });
}
