import type { Ctx } from '../../ctx.js';
import { notAllowed } from '../../domain/errors.js';
import { type EmailView, showEmail } from '../emails.js';
import { merchantInvoice } from './queries.js';
import { toInvoice } from './read.js';

/**
 * `paygate invoice email NUMBER` (SPEC §17): the invoice's receipt once more, as a new email in
 * the outbox (the PDF attached, the link), to the invoice's customer email or its subscription's
 * address now. An operator's explicit request, so it is written whatever was sent before; each
 * reason it cannot go is a one-line 1008 rather than an email that would never leave.
 */
export async function emailInvoice(ctx: Ctx, merchantId: string | undefined, number: string): Promise<EmailView> {
  const row = await merchantInvoice(ctx, merchantId, number);
  if (ctx.config.smtpUrl === undefined) throw notAllowed('PAYGATE_SMTP_URL is not set: paygate sends no email');
  const sub = row.subscriptionId !== null ? await ctx.store.getSubscriptionById(row.subscriptionId) : undefined;
  const recipient = toInvoice(row).customer.email ?? sub?.email ?? undefined;
  if (!recipient) throw notAllowed(`invoice ${row.number} has no customer email (sub update ID --email E sets one)`);
  const now = ctx.clock.now();
  const id = await ctx.store.transaction((tx) =>
    tx.enqueueEmail({
      merchantId: row.merchantId,
      kind: 'receipt',
      recipient,
      subscriptionId: row.subscriptionId,
      transactionId: row.transactionId,
      details: { invoiceNumber: row.number },
      now,
    }),
  );
  if (id === undefined)
    throw notAllowed('the merchant sends no customer email: set --email-from and --customer-emails on');
  return showEmail(ctx, id);
}
