import { afterEach } from 'vitest';
import { deliverCustomerEmails } from '../../src/services/documents/email-delivery.js';
import { updateMerchant } from '../../src/services/merchants.js';
import { rowsOf } from './rows.js';
import { type SmtpHarness, type SmtpMode, startSmtp } from './smtp.js';
import { merchantWithPlan, subscribe } from './subscriptions.js';
import { type TestApp, testApp } from './ctx.js';

/**
 * A shop that emails its subscribers (SPEC §17), for the customer-email suites: a real SMTP
 * server on loopback (test/helpers/smtp.ts), an app whose PAYGATE_SMTP_URL points at it, a
 * merchant with an emailFrom, and subscribers with a billing email. Everything is closed after
 * each test.
 */

export const SUBSCRIBER = 'ada@example.com';

export interface EmailShop {
  app: TestApp;
  smtp: SmtpHarness;
  merchantId: string;
  planId: string;
}

const open: Array<{ close: () => Promise<void> }> = [];

export function closeShopsAfterEach(): void {
  afterEach(async () => {
    for (const o of open.splice(0).reverse()) await o.close();
  });
}

export async function emailShop(
  opts: { mode?: SmtpMode; smtp?: boolean; now?: number; merchant?: Record<string, unknown> } = {},
): Promise<EmailShop> {
  const smtp = await startSmtp({ mode: opts.mode ?? 'accept' });
  open.push(smtp);
  const app = await testApp({
    ...(opts.now !== undefined ? { now: opts.now } : {}),
    env: opts.smtp === false ? {} : { PAYGATE_SMTP_URL: smtp.url },
  });
  open.push(app);
  const { merchantId, planId } = await merchantWithPlan(app.ctx, {}, { name: 'Acme Shop' });
  await updateMerchant(app.ctx, merchantId, {
    emailFrom: 'billing@acme.test',
    supportEmail: 'help@acme.test',
    ...opts.merchant,
  });
  return { app, smtp, merchantId, planId };
}

/**
 * A subscriber whose first charge gave a billing email. The first charge's receipt is sent at
 * once to a willing server and forgotten by the harness, so a test sees only what follows.
 */
export async function subscriber(
  shop: EmailShop,
  opts: { card?: string; month?: string; year?: string; email?: string | null } = {},
) {
  const { email, ...card } = opts;
  const sub = await subscribe(shop.app.ctx, shop.merchantId, shop.planId, {
    ...card,
    ...(email === null
      ? {}
      : { billingAddress: { firstName: 'Ada', lastName: 'Lovelace', email: email ?? SUBSCRIBER } }),
  });
  const mode = shop.smtp.mode;
  shop.smtp.mode = 'accept';
  await deliverCustomerEmails(shop.app.ctx);
  shop.smtp.mode = mode;
  shop.smtp.received.length = 0;
  shop.smtp.attempts = 0;
  return sub;
}

export interface EmailRow {
  id: string;
  kind: string;
  recipient: string;
  status: string;
  attempts: number;
  next_attempt_at: number;
}

/** The outbox's rows, oldest first; receipts only when asked for. */
export function emailRows(app: TestApp, opts: { receipts?: boolean } = {}): Promise<EmailRow[]> {
  return rowsOf(app.ctx).all<EmailRow>(
    `SELECT id, kind, recipient, status, attempts, next_attempt_at FROM customer_emails
     ${opts.receipts ? '' : "WHERE kind <> 'receipt'"} ORDER BY seq`,
  );
}
