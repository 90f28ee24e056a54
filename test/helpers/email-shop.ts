import { afterEach } from 'vitest';
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

/** A subscriber whose first charge gave a billing email. */
export function subscriber(
  shop: EmailShop,
  opts: { card?: string; month?: string; year?: string; email?: string | null } = {},
) {
  const { email, ...card } = opts;
  return subscribe(shop.app.ctx, shop.merchantId, shop.planId, {
    ...card,
    ...(email === null
      ? {}
      : { billingAddress: { firstName: 'Ada', lastName: 'Lovelace', email: email ?? SUBSCRIBER } }),
  });
}

export interface EmailRow {
  id: string;
  kind: string;
  recipient: string;
  status: string;
  attempts: number;
  next_attempt_at: number;
}

export function emailRows(app: TestApp): Promise<EmailRow[]> {
  return rowsOf(app.ctx).all<EmailRow>(
    'SELECT id, kind, recipient, status, attempts, next_attempt_at FROM customer_emails ORDER BY seq',
  );
}
