import { Worker } from 'node:worker_threads';
import type { DocumentLayout } from '../domain/document-layout.js';
import type { PdfAnswer, PdfJob } from './pdf-thread.js';

/**
 * PDFs are rendered on a worker thread, never on the event loop: one invoice takes 30–500 ms of
 * CPU with pdfkit (font subsetting dominates; measured on the 2-core test machine under load),
 * which on the main thread would hold up every request of `serve` for that long. One worker is
 * enough — documents are rendered when someone opens one or a receipt is sent, far less often
 * than payments — and the queue in front of it is bounded, so a flood of PDF requests waits a
 * bounded time or is refused, and never grows memory without limit.
 */

/** Jobs waiting or running before new ones are refused. */
export const MAX_QUEUED_PDFS = 64;
/** A render that takes longer has gone wrong (pdfkit looping on a pathological input): the worker is replaced. */
const RENDER_TIMEOUT_MS = 60_000;

export class PdfQueueFullError extends Error {
  constructor() {
    super(`too many PDFs being rendered (${MAX_QUEUED_PDFS} queued); try again shortly`);
    this.name = 'PdfQueueFullError';
  }
}

interface Pending {
  resolve: (pdf: Buffer) => void;
  reject: (e: Error) => void;
  timer: NodeJS.Timeout;
}

let worker: Worker | undefined;
let nextId = 1;
const pending = new Map<number, Pending>();

/**
 * The worker's script. Built code runs dist/documents/pdf-thread.js; the test runner loads
 * src/*.ts, where the worker needs tsx's loader to read the .ts file beside this one.
 */
function startWorker(): Worker {
  const fromSource = import.meta.url.endsWith('.ts');
  const script = new URL(fromSource ? './pdf-thread.ts' : './pdf-thread.js', import.meta.url);
  const w = fromSource
    ? new Worker(
        `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(script.href)}); })`,
        { eval: true },
      )
    : new Worker(script);
  // An idle renderer must not keep a CLI command or a stopping `serve` alive; a busy one must.
  w.unref();
  w.on('message', (answer: PdfAnswer) => {
    const job = pending.get(answer.id);
    if (!job) return;
    pending.delete(answer.id);
    clearTimeout(job.timer);
    if (pending.size === 0) w.unref();
    if (answer.ok) job.resolve(Buffer.from(answer.pdf.buffer, answer.pdf.byteOffset, answer.pdf.byteLength));
    else job.reject(new Error(`PDF rendering failed: ${answer.message}`));
  });
  const fail = (e: Error): void => {
    if (worker === w) worker = undefined;
    for (const [id, job] of pending) {
      clearTimeout(job.timer);
      job.reject(e);
      pending.delete(id);
    }
  };
  w.on('error', (e) => fail(new Error(`PDF worker failed: ${e.message}`)));
  w.on('exit', (code) => fail(new Error(`PDF worker stopped (exit code ${code})`)));
  return w;
}

/** The PDF of a layout, rendered off the event loop. Refuses with PdfQueueFullError when the queue is full. */
export function renderPdfOffThread(layout: DocumentLayout, opts: { creationDate?: Date } = {}): Promise<Buffer> {
  if (pending.size >= MAX_QUEUED_PDFS) return Promise.reject(new PdfQueueFullError());
  worker ??= startWorker();
  const w = worker;
  const id = nextId++;
  return new Promise<Buffer>((resolve, reject) => {
    const timer = setTimeout(() => {
      pending.delete(id);
      reject(new Error(`PDF rendering took longer than ${RENDER_TIMEOUT_MS / 1000} s`));
      // Whatever else it was doing is suspect too; the next job starts a fresh worker.
      void w.terminate();
    }, RENDER_TIMEOUT_MS);
    timer.unref();
    pending.set(id, { resolve, reject, timer });
    w.ref();
    const job: PdfJob = { id, layout, ...(opts.creationDate ? { creationDate: opts.creationDate.getTime() } : {}) };
    try {
      w.postMessage(job);
    } catch (e) {
      clearTimeout(timer);
      pending.delete(id);
      if (pending.size === 0) w.unref();
      reject(e instanceof Error ? e : new Error(String(e)));
    }
  });
}

/** Stops the worker (shutdown, tests); pending renders are refused. The next render starts a new one. */
export async function closePdfRenderer(): Promise<void> {
  const w = worker;
  worker = undefined;
  if (w) await w.terminate();
}
