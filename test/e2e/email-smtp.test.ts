import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { composeEmail } from '../../src/notify/email/compose.js';
import type { CustomerEmail } from '../../src/notify/email/message.js';
import { type MailSender, type SmtpTimeouts, smtpSender } from '../../src/notify/email/smtp.js';
import { sampleInvoice } from '../helpers/documents.js';
import { type SmtpHarness, startSmtp } from '../helpers/smtp.js';

/**
 * The SMTP sender against a real SMTP server on loopback (test/helpers/smtp.ts): what the
 * outbox is told after each attempt. Short timeouts make the hanging server's cases end quickly;
 * nothing here asserts how fast anything is.
 */
const TIMEOUTS: SmtpTimeouts = { connectMs: 5_000, idleMs: 1_500, totalMs: 20_000 };

const receipt: CustomerEmail = {
  kind: 'receipt',
  to: 'ada@example.com',
  sender: { merchantName: 'Acme Shop', emailFrom: 'billing@acme.test', supportEmail: 'help@acme.test' },
  invoice: sampleInvoice(),
  invoiceUrl: 'https://pay.acme.test/invoice/tok1',
};
const PDF = Buffer.from('%PDF-1.3\n% a stand-in for the rendered invoice\n%%EOF\n');
const message = composeEmail(receipt, 'UTC', Date.UTC(2026, 0, 25), PDF);

let smtp: SmtpHarness | undefined;
let sender: MailSender | undefined;
afterEach(async () => {
  sender?.close();
  await smtp?.close();
  smtp = undefined;
  sender = undefined;
});

async function sendWith(mode: SmtpHarness['mode']): Promise<Awaited<ReturnType<MailSender['send']>>> {
  smtp = await startSmtp({ mode });
  sender = smtpSender(smtp.url, TIMEOUTS);
  return sender.send(message);
}

describe('customer email over SMTP (SPEC §17)', () => {
  it('delivers a receipt: sender name and address, both parts, the PDF attached, over STARTTLS', async () => {
    const r = await sendWith('accept');
    expect(r.outcome).toBe('sent');
    expect(smtp?.received).toHaveLength(1);
    const got = smtp?.received[0];
    expect(got?.secure).toBe(true);
    expect(got?.envelope).toEqual({ from: 'billing@acme.test', to: ['ada@example.com'] });
    const mail = got?.mail;
    expect(mail?.from?.value).toEqual([{ name: 'Acme Shop', address: 'billing@acme.test' }]);
    expect(mail?.replyTo?.value).toEqual([{ name: '', address: 'help@acme.test' }]);
    expect(mail?.subject).toBe('Your receipt from Acme Shop — invoice INV-000042');
    expect(mail?.text).toContain('Total paid');
    expect(mail?.text).toContain('https://pay.acme.test/invoice/tok1');
    expect(mail?.html).toContain('href="https://pay.acme.test/invoice/tok1"');
    expect(mail?.attachments.map((a) => [a.filename, a.contentType])).toEqual([['INV-000042.pdf', 'application/pdf']]);
    expect(mail?.attachments[0]?.content.equals(PDF)).toBe(true);
  });

  it('logs in with the credentials of PAYGATE_SMTP_URL', async () => {
    smtp = await startSmtp({ auth: { user: 'apikey', pass: 'p@ss:word' } });
    sender = smtpSender(smtp.url, TIMEOUTS);
    expect((await sender.send(message)).outcome).toBe('sent');
    expect(smtp.received[0]?.user).toBe('apikey');
  });

  it('retries later when the login is refused, and says so', async () => {
    smtp = await startSmtp({ auth: { user: 'apikey', pass: 'right' } });
    sender = smtpSender(smtp.url.replace('right', 'wrong'), TIMEOUTS);
    const r = await sender.send(message);
    expect(r).toEqual({ outcome: 'retry', error: expect.stringMatching(/535/) });
    expect(smtp.attempts).toBe(0);
  });

  it('retries later when the server refuses the recipient', async () => {
    const r = await sendWith('refuse-recipient');
    expect(r).toEqual({ outcome: 'retry', error: expect.stringMatching(/550/) });
    expect(smtp?.received).toHaveLength(0);
  });

  it('retries later when the server refuses the message after receiving it', async () => {
    const r = await sendWith('refuse-message');
    expect(r).toEqual({ outcome: 'retry', error: expect.stringMatching(/451/) });
    expect(smtp?.attempts).toBe(1);
    expect(smtp?.received).toHaveLength(0);
  });

  it('retries later, never "sent", when the connection drops before the server answers the message', async () => {
    const r = await sendWith('drop');
    expect(r.outcome).toBe('retry');
    expect(smtp?.attempts).toBe(1);
  });

  it('retries later when the server takes the message and never answers', async () => {
    const r = await sendWith('hang');
    expect(r.outcome).toBe('retry');
    expect(smtp?.attempts).toBe(1);
    expect(smtp?.received).toHaveLength(0);
  });

  it('retries later when the server never greets', async () => {
    const r = await sendWith('hang-greeting');
    expect(r.outcome).toBe('retry');
    expect(smtp?.attempts).toBe(0);
  });

  it('retries later when nothing listens at the address', async () => {
    const port = await new Promise<number>((resolve) => {
      const s = createServer();
      s.listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    sender = smtpSender(`smtp://127.0.0.1:${port}`, TIMEOUTS);
    expect(await sender.send(message)).toEqual({ outcome: 'retry', error: expect.stringMatching(/ECONNREFUSED/) });
  });

  it('sends a message once per call: a success is one message on the server', async () => {
    smtp = await startSmtp();
    sender = smtpSender(smtp.url, TIMEOUTS);
    smtp.mode = 'refuse-message';
    expect((await sender.send(message)).outcome).toBe('retry');
    smtp.mode = 'accept';
    expect((await sender.send(message)).outcome).toBe('sent');
    expect(smtp.attempts).toBe(2);
    expect(smtp.received).toHaveLength(1);
  });
});
