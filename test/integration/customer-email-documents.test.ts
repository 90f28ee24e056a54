import { describe, expect, it } from 'vitest';
import { parseTime } from '../../src/domain/time.js';
import { deliverCustomerEmails } from '../../src/services/documents/email-delivery.js';
import { emailInvoice } from '../../src/services/documents/email-invoice.js';
import { requireMerchant } from '../../src/services/merchants.js';
import { refundTransaction } from '../../src/services/refund.js';
import { runRenewal } from '../../src/services/renew/index.js';
import { createTransaction } from '../../src/services/transactions/index.js';
import { cardYear } from '../helpers/cards.js';
import { TEST_NOW } from '../helpers/ctx.js';
import {
  closeShopsAfterEach,
  type EmailShop,
  emailRows,
  emailShop,
  SUBSCRIBER,
  subscriber,
} from '../helpers/email-shop.js';

/**
 * Receipts and credit notes by email (SPEC §17): written with the invoice or credit note, sent
 * with the invoice's PDF attached and its link, to a real SMTP server on loopback.
 */
closeShopsAfterEach();
const t = (s: string): number => parseTime(s, 'UTC');

async function pay(shop: EmailShop, billing?: Record<string, string>, cardNumber = '4242424242424242') {
  const m = await requireMerchant(shop.app.ctx, shop.merchantId);
  return createTransaction(shop.app.ctx, m, {
    requestId: `r-${Math.random()}`,
    relationId: `o-${Math.random()}`,
    paymentType: 'PAY',
    payAmount: '12.50',
    currency: 'USD',
    cardInfo: JSON.stringify({ cardNumber, month: '12', year: cardYear(TEST_NOW), cvv: '123' }),
    ...(billing ? { billingAddress: JSON.stringify(billing) } : {}),
  }) as Promise<unknown> as Promise<{ transactionOrderId: string; status: string | number }>;
}

describe('receipts and credit notes by email', () => {
  it('a successful PAY sends one receipt with the invoice PDF attached and its link, the card as brand and last four', async () => {
    const shop = await emailShop();
    await pay(shop, { firstName: 'Ada', email: SUBSCRIBER });
    expect(await deliverCustomerEmails(shop.app.ctx)).toMatchObject({ sent: 1 });
    const got = shop.smtp.received[0];
    expect(got?.envelope.to).toEqual([SUBSCRIBER]);
    expect(got?.mail.from?.value).toEqual([{ name: 'Acme Shop', address: 'billing@acme.test' }]);
    expect(got?.mail.subject).toBe('Your receipt from Acme Shop — invoice INV-000001');
    expect(got?.mail.text).toContain('VISA ••4242');
    expect(got?.mail.text).toMatch(/http:\/\/127\.0\.0\.1:8080\/invoice\/[\w-]+/);
    expect(got?.mail.html).toMatch(/^<!doctype html>/);
    expect(got?.mail.attachments.map((a) => [a.filename, a.contentType])).toEqual([
      ['INV-000001.pdf', 'application/pdf'],
    ]);
    expect(got?.mail.attachments[0]?.content.subarray(0, 5).toString()).toBe('%PDF-');
    expect(`${got?.mail.text}${got?.mail.html}`).not.toContain('4242424242424242');
    expect(await deliverCustomerEmails(shop.app.ctx)).toMatchObject({ sent: 0 });
  });

  it('a declined PAY writes no receipt', async () => {
    const shop = await emailShop();
    await pay(shop, { email: SUBSCRIBER }, '4000000000000002');
    expect(await emailRows(shop.app, { receipts: true })).toEqual([]);
  });

  it('a refund sends a credit note naming its invoice, with its own link and PDF and the invoice link', async () => {
    const shop = await emailShop();
    const paid = await pay(shop, { email: SUBSCRIBER });
    const m = await requireMerchant(shop.app.ctx, shop.merchantId);
    await refundTransaction(shop.app.ctx, m, {
      merchantId: m.id,
      transactionOrderId: paid.transactionOrderId,
      refundAmount: '5.00',
    });
    expect(await deliverCustomerEmails(shop.app.ctx)).toMatchObject({ sent: 2 });
    const note = shop.smtp.received.find((r) => r.mail.subject?.startsWith('Refund'));
    expect(note?.mail.subject).toBe('Refund from Acme Shop — credit note INV-CN-000001');
    expect(note?.mail.text).toContain('5.00 USD');
    expect(note?.mail.text).toContain('INV-000001');
    expect(note?.mail.text).toMatch(/\/invoice\/[\w-]+/);
    expect(note?.mail.text).toMatch(/http:\/\/127\.0\.0\.1:8080\/credit-note\/[\w-]+/);
    expect(note?.mail.attachments.map((a) => [a.filename, a.contentType])).toEqual([
      ['INV-CN-000001.pdf', 'application/pdf'],
    ]);
    expect(note?.mail.attachments[0]?.content.subarray(0, 5).toString()).toBe('%PDF-');
  });

  it('a renewal’s receipt goes to the subscription’s email', async () => {
    const shop = await emailShop();
    await subscriber(shop);
    shop.app.clock.set(t('2026-02-15 09:00:00'));
    await runRenewal(shop.app.ctx);
    expect((await emailRows(shop.app, { receipts: true })).map((r) => [r.kind, r.recipient, r.status])).toEqual([
      ['receipt', SUBSCRIBER, 'SENT'],
      ['receipt', SUBSCRIBER, 'SENT'],
    ]);
    // The first charge's receipt went when the subscriber signed up; this run sent the renewal's.
    expect(shop.smtp.received.map((r) => r.mail.attachments[0]?.filename)).toEqual(['INV-000002.pdf']);
  });

  it('invoice email sends the receipt again; without an address it is 1008', async () => {
    const shop = await emailShop();
    await pay(shop, { email: SUBSCRIBER });
    await pay(shop);
    await deliverCustomerEmails(shop.app.ctx);
    const again = await emailInvoice(shop.app.ctx, undefined, 'INV-000001');
    expect(again).toMatchObject({ kind: 'receipt', to: SUBSCRIBER, status: 'PENDING' });
    expect(await deliverCustomerEmails(shop.app.ctx)).toMatchObject({ sent: 1 });
    expect(shop.smtp.received.map((r) => r.mail.attachments[0]?.filename)).toEqual([
      'INV-000001.pdf',
      'INV-000001.pdf',
    ]);
    await expect(emailInvoice(shop.app.ctx, undefined, 'INV-000002')).rejects.toMatchObject({ code: '1008' });
    await expect(emailInvoice(shop.app.ctx, undefined, 'INV-000099')).rejects.toMatchObject({ code: '1007' });
  });
});
