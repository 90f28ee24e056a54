import type { Command } from 'commander';
import type { DocumentLayout } from '../../domain/document-layout.js';
import { addPaging, pageFooter, pageOf } from '../choose.js';
import { record, table } from '../output.js';
import { outputFile, writeOutputFile } from '../output-file.js';
import { action, UsageError, withCtx } from '../shell.js';

// Services load inside each action (on first use): --help, --version, completion and usage errors never need them.

const columns = {
  invoiceNumber: 'invoice',
  issuedAt: 'issued',
  total: 'total',
  transactionOrderId: 'transaction',
  subscriptionCode: 'subscription',
  userId: 'user',
  merchantId: 'merchant',
} as const;

/** What gives way first on a narrow terminal: the number and the total never do. */
const leaveOut = ['merchantId', 'userId', 'subscriptionCode', 'transactionOrderId', 'issuedAt'] as const;

interface ListOptions {
  merchant?: string;
  subscription?: string;
  tx?: string;
  user?: string;
  limit: string;
  page: string;
}

/** The document as a terminal shows it: the words of the page and the PDF, in their order. */
function documentText(l: DocumentLayout): string {
  const blocks = [l.seller, l.buyer].flatMap((b) => (b ? [`${b.title}:`, ...b.lines.map((x) => `  ${x}`), ''] : []));
  const pairs = (ps: DocumentLayout['meta']) => ps.map((p) => `${p.label}: ${p.value}`);
  const [d, q, u, a] = l.table.columns;
  const rows = l.table.rows.map(([description, qty, unit, amount]) => ({ description, qty, unit, amount }));
  return [
    `${l.heading} ${l.number}`,
    '',
    ...blocks,
    ...pairs(l.meta),
    '',
    table(rows, { description: d, qty: q, unit: u, amount: a }),
    ...pairs(l.totals),
    ...l.notes,
  ].join('\n');
}

export function registerInvoiceCommands(program: Command): void {
  const invoice = program.command('invoice').description('invoices of successful charges and credit notes of refunds');
  addPaging(
    invoice
      .command('list')
      .description('invoices, newest first: of every merchant, or of one; of a subscription, a transaction or a user')
      .option('--merchant <id>', 'only this merchant')
      .option('--subscription <code>', "only this subscription's (its code or id)")
      .option('--tx <id>', "only this transaction's (transactionOrderId)")
      .option('--user <userId>', "only this user's"),
  ).action(
    action(async (opts: ListOptions, cmd: Command) => {
      const req = pageOf(opts);
      if ([opts.subscription, opts.tx, opts.user].filter((v) => v !== undefined).length > 1)
        throw new UsageError('give one of --subscription, --tx and --user');
      await withCtx(cmd, async (ctx, out) => {
        const { requireMerchant } = await import('../../services/merchants.js');
        const { pageInvoiceViews } = await import('../../services/documents/queries.js');
        const merchantId = opts.merchant ? (await requireMerchant(ctx, opts.merchant)).id : undefined;
        const filter = { subscriptionCode: opts.subscription, transactionOrderId: opts.tx, userId: opts.user };
        const p = await pageInvoiceViews(ctx, merchantId, filter, req);
        const rows = p.items.map((i) => ({ ...i, total: `${i.total} ${i.currency}` }));
        out.result(p.items, () => `${table(rows, columns, { leaveOut })}\n${pageFooter(p)}`);
      });
    }),
  );

  invoice
    .command('show')
    .description('one invoice (with its credit notes) or credit note, by its number')
    .argument('<number>', 'INV-000042 or INV-CN-000007')
    .option('--merchant <id>', 'the merchant whose document it is (needed when several have one so numbered)')
    .action(
      action(async (number: string, opts: { merchant?: string }, cmd: Command) => {
        await withCtx(cmd, async (ctx, out) => {
          const { findDocument } = await import('../../services/documents/queries.js');
          const doc = await findDocument(ctx, opts.merchant, number);
          out.result(doc.view, () => documentText(doc.layout));
        });
      }),
    );

  invoice
    .command('email')
    .description("send an invoice's receipt (PDF attached) to its customer again, through the email outbox")
    .argument('<number>', 'INV-000042')
    .option('--merchant <id>', 'the merchant whose invoice it is (needed when several have one so numbered)')
    .action(
      action(async (number: string, opts: { merchant?: string }, cmd: Command) => {
        await withCtx(cmd, async (ctx, out) => {
          const { emailInvoice } = await import('../../services/documents/email-invoice.js');
          const v = await emailInvoice(ctx, opts.merchant, number);
          out.result(v, () => `${record(v)}\nqueued: \`paygate serve\` or \`paygate renew\` sends it`);
        });
      }),
    );

  invoice
    .command('pdf')
    .description('write an invoice or credit note as PDF (A4, as its page shows it)')
    .argument('<number>', 'INV-000042 or INV-CN-000007')
    .requiredOption('--out <file>', 'the PDF file to write')
    .option('--force', 'replace the file if it exists')
    .option('--merchant <id>', 'the merchant whose document it is (needed when several have one so numbered)')
    .action(
      action(async (number: string, opts: { out: string; force?: boolean; merchant?: string }, cmd: Command) => {
        const target = outputFile('out', opts.out, { replace: Boolean(opts.force) });
        await withCtx(cmd, async (ctx, out) => {
          const { findDocument } = await import('../../services/documents/queries.js');
          const { renderPdf } = await import('../../documents/pdf.js');
          const doc = await findDocument(ctx, opts.merchant, number);
          // The CLI has no other request to hold up: it renders on its own thread.
          const pdf = await renderPdf(doc.layout);
          // A document holds the customer's name, address and email: readable by its owner only, as a backup is.
          writeOutputFile('out', target, pdf, { replace: Boolean(opts.force), mode: 0o600 });
          out.result({ number: doc.layout.number, file: target, bytes: pdf.length }, () => `wrote ${target}`);
        });
      }),
    );
}
