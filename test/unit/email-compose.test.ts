import { describe, expect, it, vi } from 'vitest';
import { composeEmail } from '../../src/notify/email/compose.js';
import type { CustomerEmail, EmailSender } from '../../src/notify/email/message.js';
import { sampleCreditNote, sampleInvoice } from '../helpers/documents.js';

const sender: EmailSender = {
  merchantName: 'Acme Shop',
  emailFrom: 'billing@acme.test',
  supportEmail: 'help@acme.test',
};
const card = { brand: 'Visa', last4: '4242' };
const UPDATE_URL = 'https://pay.acme.test/card/tok_abc?x=1&y=2';
/** When the messages are composed: the card-expiring card (01/2026) is still valid then. */
const COMPOSED_AT = Date.UTC(2026, 0, 25, 9);

const emails: Record<CustomerEmail['kind'], CustomerEmail> = {
  receipt: {
    kind: 'receipt',
    to: 'ada@example.com',
    sender,
    invoice: sampleInvoice(),
    invoiceUrl: 'https://pay.acme.test/invoice/tok1',
  },
  'credit-note': {
    kind: 'credit-note',
    to: 'ada@example.com',
    sender,
    creditNote: sampleCreditNote(),
    creditNoteUrl: 'https://pay.acme.test/credit-note/tok9',
    payment: card,
    invoiceUrl: 'https://pay.acme.test/invoice/tok1',
  },
  'renewal-failed': {
    kind: 'renewal-failed',
    to: 'ada@example.com',
    sender,
    planName: 'Pro monthly',
    subscriptionCode: 'SUB42',
    amount: 2900,
    currency: 'EUR',
    payment: card,
    failReason: 'insufficient_funds',
    updateCardUrl: UPDATE_URL,
    nextAttemptAt: Date.UTC(2026, 0, 8, 10),
  },
  'card-expiring': {
    kind: 'card-expiring',
    to: 'ada@example.com',
    sender,
    planName: 'Pro monthly',
    subscriptionCode: 'SUB42',
    amount: 2900,
    currency: 'EUR',
    payment: card,
    expMonth: 1,
    expYear: 2026,
    renewalAt: Date.UTC(2026, 1, 1, 9),
    updateCardUrl: UPDATE_URL,
  },
  'subscription-ended': {
    kind: 'subscription-ended',
    to: 'ada@example.com',
    sender,
    planName: 'Pro monthly',
    subscriptionCode: 'SUB42',
    status: 'CANCELLED',
    endTime: Date.UTC(2026, 1, 1, 9),
  },
};

const visible = (html: string): string =>
  html
    .replace(/<[^>]*>/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/\s+/g, ' ');

describe('customer emails (SPEC §17)', () => {
  it.each(Object.values(emails))(
    'a $kind is from the merchant’s name at its emailFrom, to the customer, replies to support',
    (email) => {
      const m = composeEmail(email, 'UTC', COMPOSED_AT);
      expect(m.from).toEqual({ name: 'Acme Shop', address: 'billing@acme.test' });
      expect(m.to).toBe('ada@example.com');
      expect(m.replyTo).toBe('help@acme.test');
    },
  );

  it.each(Object.values(emails))('a $kind says the same in its plain-text and HTML parts', (email) => {
    const m = composeEmail(email, 'UTC', COMPOSED_AT);
    const html = visible(m.html);
    for (const line of m.text.split('\n').filter((l) => l.trim() !== '')) {
      expect(html).toContain(
        line
          .replace(/\s{2,}/g, ' ')
          .trim()
          .replace(/:$/, ''),
      );
    }
  });

  it.each(Object.values(emails))('a $kind shows a card by brand and last four digits only', (email) => {
    const m = composeEmail(email, 'UTC', COMPOSED_AT);
    for (const part of [m.subject, m.text, m.html]) {
      expect(part).not.toMatch(/\d{12,}/);
      expect(part).not.toContain('424242');
    }
    if (email.kind !== 'subscription-ended') expect(m.text).toContain('VISA ••4242');
  });

  it('attaches the invoice PDF to a receipt, named by its number, with the invoice link and total', () => {
    const pdf = Buffer.from('%PDF-1.3 test');
    const m = composeEmail(emails.receipt, 'UTC', COMPOSED_AT, pdf);
    expect(m.attachments).toEqual([{ filename: 'INV-000042.pdf', contentType: 'application/pdf', content: pdf }]);
    expect(m.subject).toBe('Your receipt from Acme Shop — invoice INV-000042');
    expect(m.text).toContain('https://pay.acme.test/invoice/tok1');
    expect(m.text).toMatch(/Total paid\s+1,300\.00 USD/);
    expect(m.text).toMatch(/T-shirt × 2\s+39\.98 USD/);
    expect(m.text).toContain('Hello Łukasz Żółw,');
  });

  it('tells of a refund with its credit note, invoice and amount', () => {
    const m = composeEmail(emails['credit-note'], 'UTC', COMPOSED_AT);
    expect(m.subject).toBe('Refund from Acme Shop — credit note INV-CN-000007');
    expect(m.text).toContain('Acme Shop has refunded 39.98 USD to your card VISA ••4242.');
    expect(m.text).toMatch(/For invoice\s+INV-000042/);
  });

  it('says in a sandbox charge’s receipt and refund email that no real money moved', () => {
    const note = 'Sandbox — test mode: no real money moved.';
    const receipt = { ...emails.receipt, invoice: { ...sampleInvoice(), sandbox: true } } as CustomerEmail;
    const refund = { ...emails['credit-note'], creditNote: { ...sampleCreditNote(), sandbox: true } } as CustomerEmail;
    for (const email of [receipt, refund]) {
      const m = composeEmail(email, 'UTC', COMPOSED_AT);
      expect(m.text).toContain(note);
      expect(m.html).toContain(note);
    }
    expect(composeEmail(emails.receipt, 'UTC', COMPOSED_AT).text).not.toContain(note);
  });

  it('links a refund’s credit note page, and the invoice it credits', () => {
    const m = composeEmail(emails['credit-note'], 'UTC', COMPOSED_AT);
    expect(m.text).toContain('https://pay.acme.test/credit-note/tok9');
    expect(m.html).toContain('href="https://pay.acme.test/credit-note/tok9"');
    expect(m.text).toContain('The invoice it credits: https://pay.acme.test/invoice/tok1');
  });

  it('gives a failed renewal’s reason, next attempt and card-update link', () => {
    const m = composeEmail(emails['renewal-failed'], 'UTC', COMPOSED_AT);
    expect(m.subject).toBe('Action needed: your payment to Acme Shop failed');
    expect(m.text).toContain(
      'We could not charge 29.00 EUR to your card VISA ••4242 for your subscription to Pro monthly because the card has insufficient funds.',
    );
    expect(m.text).toContain('We will try again on 2026-01-08.');
    expect(m.text).toContain(UPDATE_URL);
    expect(m.html).toContain('href="https://pay.acme.test/card/tok_abc?x=1&amp;y=2"');
  });

  it('warns of a card that expires before the next renewal, with the link', () => {
    const m = composeEmail(emails['card-expiring'], 'UTC', COMPOSED_AT);
    const said =
      'Your card VISA ••4242 expires at the end of 01/2026, before your next payment for Pro monthly on 2026-02-01.';
    expect(m.subject).toBe('Your card for Acme Shop expires soon');
    expect(m.text).toContain(said);
    expect(visible(m.html)).toContain(said);
    expect(m.text).toContain(UPDATE_URL);
  });

  it('still says "expires soon", in the present tense, until the last moment of the expiry month in the zone', () => {
    // 2026-01-31 23:30 UTC is still January in UTC, already February in Berlin.
    const lastMinutes = Date.UTC(2026, 0, 31, 23, 30);
    const m = composeEmail(emails['card-expiring'], 'UTC', lastMinutes);
    expect(m.subject).toBe('Your card for Acme Shop expires soon');
    expect(m.text).toContain('expires at the end of 01/2026, before your next payment');
    expect(composeEmail(emails['card-expiring'], 'Europe/Berlin', lastMinutes).subject).toBe(
      'Your card for Acme Shop has expired',
    );
  });

  it('says a card has expired, subject and both parts, once its expiry month is over when composed', () => {
    const email: CustomerEmail = {
      ...emails['card-expiring'],
      kind: 'card-expiring',
      expMonth: 12,
      expYear: 2026,
      renewalAt: Date.UTC(2027, 0, 28, 9),
    } as CustomerEmail;
    const m = composeEmail(email, 'UTC', Date.UTC(2027, 0, 21, 9));
    const said =
      'Your card VISA ••4242 expired at the end of 12/2026. Your next payment for Pro monthly is due on 2027-01-28.';
    expect(m.subject).toBe('Your card for Acme Shop has expired');
    expect(m.text).toContain(said);
    expect(visible(m.html)).toContain(said);
    expect(m.html).toContain('<title>Your card for Acme Shop has expired</title>');
    for (const part of [m.subject, m.text, visible(m.html)]) expect(part).not.toMatch(/expires|soon|before your next/);
    expect(m.text).toContain(UPDATE_URL);
  });

  it('reads no clock: the time it is composed at is the one passed in', () => {
    const at = Date.UTC(2027, 0, 21, 9);
    try {
      vi.useFakeTimers({ now: Date.UTC(2020, 0, 1) });
      const before = composeEmail(emails['card-expiring'], 'UTC', at);
      vi.setSystemTime(Date.UTC(2030, 0, 1));
      expect(composeEmail(emails['card-expiring'], 'UTC', at)).toEqual(before);
      expect(before.subject).toBe('Your card for Acme Shop has expired');
    } finally {
      vi.useRealTimers();
    }
  });

  it.each([
    ['CANCELLED', 'has been cancelled. It ends on 2026-02-01 10:00:00'],
    ['FAILED', 'ended on 2026-02-01 10:00:00 because we could not charge your card'],
  ] as const)('tells a %s subscription’s end time in the shop’s zone', (status, words) => {
    const m = composeEmail(
      { ...emails['subscription-ended'], kind: 'subscription-ended', status } as CustomerEmail,
      'Europe/Berlin',
      COMPOSED_AT,
    );
    expect(m.text).toContain(words);
  });

  it('escapes the merchant’s and customer’s text in the HTML part', () => {
    const m = composeEmail(
      { ...emails.receipt, sender: { merchantName: '<i>Evil</i> & Co', emailFrom: 'x@y.test' } } as CustomerEmail,
      'UTC',
      COMPOSED_AT,
    );
    expect(m.html).not.toContain('<i>Evil</i>');
    expect(m.html).toContain('&lt;i&gt;Evil&lt;/i&gt; &amp; Co');
    expect(m.from.name).toBe('<i>Evil</i> & Co');
  });

  it('has no reply-to without a support address', () => {
    const m = composeEmail(
      { ...emails.receipt, sender: { merchantName: 'A', emailFrom: 'a@a.test' } } as CustomerEmail,
      'UTC',
      COMPOSED_AT,
    );
    expect(m.replyTo).toBeUndefined();
    expect(m.text).toContain('Questions? Reply to this email to reach A.');
  });
});
