#!/usr/bin/env node
// Invoice PDF benchmark (issue 22): what one render costs, and what it does to the event loop.
// Run: `npx tsc -p tsconfig.build.json && node bench/documents.mjs` (or `npm run bench -- documents`).
//  1. render: one invoice PDF on the main thread, with the embedded font (DejaVu Sans, where
//     installed) and with the standard font — median and p95 of N renders (default 20) after a warm-up;
//  2. event loop: how late a 5 ms timer on the main thread fires (p99, max) while N
//     PDFs render, on the main thread and then through the worker (src/documents/pdf-renderer.ts).
//     A `serve` answers nothing while its event loop is held, so this is the delay a PAY would see.
// Target: a PDF never holds the event loop for long — the worker's p99 stays near an idle loop's.

const DIST = new URL('../dist/', import.meta.url);
const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const N = arg('--renders', 20);

const { layoutInvoice } = await import(new URL('domain/document-layout.js', DIST));
const { invoiceLines } = await import(new URL('domain/documents.js', DIST));
const { renderPdf } = await import(new URL('documents/pdf.js', DIST));
const { pdfFonts } = await import(new URL('documents/pdf-fonts.js', DIST));
const { renderPdfOffThread, closePdfRenderer } = await import(new URL('documents/pdf-renderer.js', DIST));

const items = Array.from({ length: 8 }, (_, i) => ({ name: `Item ${i + 1}`, price: '12.50', num: '2' }));
const layout = layoutInvoice(
  {
    number: 'INV-000001',
    issuedAt: Date.UTC(2026, 0, 5),
    currency: 'USD',
    merchant: { name: 'Bench Shop', legalName: 'Bench Shop Ltd', address: '1 Main St\nSpringfield', taxId: 'US1' },
    customer: { name: 'Ada Lovelace', addressLines: ['12 St James Square', 'London'], email: 'ada@example.com' },
    lines: invoiceLines({ kind: 'items', items }, 20_000, 'USD'),
    total: 20_000,
    payment: { brand: 'Visa', last4: '4242' },
    transactionOrderId: 'txn_bench',
    relationId: 'order-1',
  },
  'UTC',
);

const ms = (ns) => (ns / 1e6).toFixed(1);
const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];

async function timeRenders(fonts) {
  await renderPdf(layout, { fonts });
  const times = [];
  for (let i = 0; i < N; i++) {
    const t = process.hrtime.bigint();
    await renderPdf(layout, { fonts });
    times.push(Number(process.hrtime.bigint() - t));
  }
  times.sort((a, b) => a - b);
  return `median ${ms(pct(times, 0.5))} ms, p95 ${ms(pct(times, 0.95))} ms`;
}

/** How late a 5 ms timer fires while `work` runs: what a request arriving meanwhile waits. */
async function loopDelay(work) {
  const late = [];
  let expected = performance.now() + 5;
  const probe = setInterval(() => {
    const now = performance.now();
    late.push(Math.max(0, now - expected));
    expected = now + 5;
  }, 5);
  const start = performance.now();
  await work();
  const elapsed = performance.now() - start;
  clearInterval(probe);
  // pdfkit's stream settles through process.nextTick: renders back to back never let a timer in.
  if (late.length === 0) return `the timer never fired: the loop was held for all ${elapsed.toFixed(0)} ms`;
  late.sort((a, b) => a - b);
  return `p99 ${pct(late, 0.99).toFixed(1)} ms, max ${(late.at(-1) ?? 0).toFixed(1)} ms (${late.length} ticks)`;
}

const renders = (render) => async () => {
  for (let i = 0; i < N; i++) await render();
};

const dejavu = pdfFonts();
const embedded = typeof dejavu.regular !== 'string';
console.log(`## Invoice PDFs — ${N} renders of an 8-line invoice`);
console.log(
  `render on the main thread, DejaVu Sans embedded: ${embedded ? await timeRenders(dejavu) : 'skipped (not installed)'}`,
);
console.log(`render on the main thread, Helvetica (standard font): ${await timeRenders(pdfFonts('/nonexistent'))}`);
console.log(`event loop, idle for 1 s: ${await loopDelay(() => new Promise((r) => setTimeout(r, 1000)))}`);
console.log(`event loop while rendering on the main thread: ${await loopDelay(renders(() => renderPdf(layout)))}`);
await renderPdfOffThread(layout); // starts the worker
console.log(
  `event loop while rendering through the worker: ${await loopDelay(renders(() => renderPdfOffThread(layout)))}`,
);
await closePdfRenderer();
