import { layoutCreditNote, layoutInvoice, paymentLabel, SANDBOX_NOTE } from '../../domain/document-layout.js';
import { formatMoney } from '../../domain/money.js';
import { formatTime } from '../../domain/time.js';
import { cardExpired } from '../../vault/card.js';
import type { CustomerEmail, ReceiptStopped } from './message.js';

/**
 * A customer email as a message: subject, a plain-text part and an HTML part with the same
 * content (one body model, two renderings, as for documents), and the PDF attachment. Pure:
 * the zone, the time it is composed at and the rendered PDF come from the caller.
 */

export interface ComposedEmail {
  from: { name: string; address: string };
  to: string;
  replyTo?: string;
  subject: string;
  text: string;
  html: string;
  attachments: Array<{ filename: string; contentType: 'application/pdf'; content: Buffer }>;
}

interface Body {
  greeting: string;
  paragraphs: string[];
  rows: Array<[string, string]>;
  action?: { label: string; url: string };
  after: string[];
}

const REASONS: Record<string, string> = {
  card_declined: 'the card was declined',
  insufficient_funds: 'the card has insufficient funds',
  expired_card: 'the card has expired',
  incorrect_cvc: 'the card’s security code was not accepted',
  processing_error: 'of a processing error at the card network',
  authentication_failed: 'the payment was not authenticated',
  authentication_expired: 'the payment was not authenticated in time',
};

const date = (ms: number, zone: string): string => formatTime(ms, zone).slice(0, 10);

function bodyOf(email: CustomerEmail, zone: string, now: number): { subject: string; body: Body } {
  const shop = email.sender.merchantName;
  switch (email.kind) {
    case 'receipt': {
      const inv = email.invoice;
      const layout = layoutInvoice(inv, zone);
      return {
        subject: `Your receipt from ${shop} — invoice ${inv.number}`,
        body: {
          greeting: greeting(inv.customer.name),
          paragraphs: [
            `Thank you for your payment to ${shop}. Your invoice ${inv.number} is attached as a PDF.`,
            ...(email.stopped ? [stoppedNote(email.stopped, zone)] : []),
            ...(inv.sandbox ? [SANDBOX_NOTE] : []),
          ],
          rows: [
            ...layout.table.rows.map(([d, q, , a]): [string, string] => [q && q !== '1' ? `${d} × ${q}` : d, a]),
            ['Total paid', formatMoney(inv.total, inv.currency)],
            ['Date', formatTime(inv.issuedAt, zone)],
            ...(inv.payment ? [['Paid with', paymentLabel(inv.payment)] as [string, string]] : []),
          ],
          action: { label: 'View your invoice', url: email.invoiceUrl },
          after: [],
        },
      };
    }
    case 'credit-note': {
      const cn = email.creditNote;
      const layout = layoutCreditNote(cn, zone);
      const to = email.payment ? `your card ${paymentLabel(email.payment)}` : 'your original payment method';
      return {
        subject: `Refund from ${shop} — credit note ${cn.number}`,
        body: {
          greeting: greeting(cn.customer.name),
          paragraphs: [
            `${shop} has refunded ${formatMoney(cn.amount, cn.currency)} to ${to}.`,
            ...(cn.sandbox ? [SANDBOX_NOTE] : []),
          ],
          rows: layout.meta.filter((m) => m.label !== 'Issued').map((m): [string, string] => [m.label, m.value]),
          action: { label: 'View your credit note', url: email.creditNoteUrl },
          after: [
            ...(email.invoiceUrl ? [`The invoice it credits: ${email.invoiceUrl}`] : []),
            'Your bank may take a few days to show the refund.',
          ],
        },
      };
    }
    case 'renewal-failed': {
      const amount = formatMoney(email.amount, email.currency);
      const card = email.payment ? ` to your card ${paymentLabel(email.payment)}` : '';
      const why = email.failReason && REASONS[email.failReason] ? ` because ${REASONS[email.failReason]}` : '';
      return {
        subject: `Action needed: your payment to ${shop} failed`,
        body: {
          greeting: greeting(),
          paragraphs: [
            `We could not charge ${amount}${card} for your subscription to ${email.planName}${why}.`,
            email.nextAttemptAt === undefined
              ? 'Please update your card to keep your subscription.'
              : `We will try again on ${date(email.nextAttemptAt, zone)}. To keep your subscription, please update your card.`,
          ],
          rows: [
            ['Subscription', email.subscriptionCode],
            ['Amount', amount],
          ],
          action: { label: 'Update your card', url: email.updateCardUrl },
          after: [],
        },
      };
    }
    case 'card-expiring': {
      const expiry = `${String(email.expMonth).padStart(2, '0')}/${email.expYear}`;
      const card = `Your card ${paymentLabel(email.payment)}`;
      const renewal = date(email.renewalAt, zone);
      // Written up to 7 days ahead and sent later (or retried): a card whose expiry month is over
      // when the message is composed (judged as the renewal judges it) has expired, not "expires soon".
      const expired = cardExpired(email.expMonth, email.expYear, now, zone);
      return {
        subject: expired ? `Your card for ${shop} has expired` : `Your card for ${shop} expires soon`,
        body: {
          greeting: greeting(),
          paragraphs: [
            expired
              ? `${card} expired at the end of ${expiry}. Your next payment for ${email.planName} is due on ${renewal}.`
              : `${card} expires at the end of ${expiry}, before your next payment for ${email.planName} on ${renewal}.`,
            'Please add a new card so that your subscription continues without interruption.',
          ],
          rows: [
            ['Subscription', email.subscriptionCode],
            ['Next payment', `${formatMoney(email.amount, email.currency)} on ${renewal}`],
          ],
          action: { label: 'Update your card', url: email.updateCardUrl },
          after: [],
        },
      };
    }
    case 'subscription-ended': {
      const cancelled = email.status === 'CANCELLED';
      return {
        subject: `Your subscription to ${email.planName} has ${cancelled ? 'been cancelled' : 'ended'}`,
        body: {
          greeting: greeting(),
          paragraphs: [
            cancelled
              ? email.chargeUnderWay
                ? `Your subscription to ${email.planName} with ${shop} has been cancelled. A payment for it was already under way when it was cancelled and may still go through: if it does, you will receive a receipt and your subscription runs to the end of the period that payment covers; if not, it ends on ${formatTime(email.endTime, zone)}. No new payment will be taken.`
                : `Your subscription to ${email.planName} with ${shop} has been cancelled. It ends on ${formatTime(email.endTime, zone)}; you will not be charged again.`
              : `Your subscription to ${email.planName} with ${shop} ended on ${formatTime(email.endTime, zone)} because we could not charge your card after several attempts.`,
          ],
          rows: [['Subscription', email.subscriptionCode]],
          after: [],
        },
      };
    }
  }
}

/** A renewal that completed after its subscription was cancelled or paused: what it paid for. */
function stoppedNote(stopped: ReceiptStopped, zone: string): string {
  const until = formatTime(stopped.until, zone);
  return stopped.status === 'CANCELLED'
    ? `This payment was already under way when your subscription was cancelled and has gone through, so your subscription runs until ${until}. It ends then and will not be charged again.`
    : `This payment was already under way when your subscription was paused and has gone through: it pays for your subscription until ${until}. Nothing more is charged while it is paused.`;
}

function greeting(name?: string): string {
  return name ? `Hello ${name},` : 'Hello,';
}

function footer(email: CustomerEmail): string {
  const support = email.sender.supportEmail;
  return support
    ? `Questions? Reply to this email or write to ${support}.`
    : `Questions? Reply to this email to reach ${email.sender.merchantName}.`;
}

export function composeEmail(email: CustomerEmail, zone: string, now: number, pdf?: Buffer): ComposedEmail {
  const { subject, body } = bodyOf(email, zone, now);
  const foot = footer(email);
  const attachments: ComposedEmail['attachments'] = [];
  if (pdf && email.kind === 'receipt')
    attachments.push({ filename: `${email.invoice.number}.pdf`, contentType: 'application/pdf', content: pdf });
  if (pdf && email.kind === 'credit-note')
    attachments.push({ filename: `${email.creditNote.number}.pdf`, contentType: 'application/pdf', content: pdf });
  return {
    from: { name: email.sender.merchantName, address: email.sender.emailFrom },
    to: email.to,
    ...(email.sender.supportEmail ? { replyTo: email.sender.supportEmail } : {}),
    subject,
    text: plainText(body, foot, email.sender.merchantName),
    html: htmlPart(body, foot, email.sender.merchantName, subject),
    attachments,
  };
}

function plainText(b: Body, foot: string, shop: string): string {
  const width = Math.max(0, ...b.rows.map(([l]) => l.length));
  const parts = [b.greeting, ...b.paragraphs];
  if (b.rows.length > 0) parts.push(b.rows.map(([l, v]) => `${l.padEnd(width)}  ${v}`).join('\n'));
  if (b.action) parts.push(`${b.action.label}:\n${b.action.url}`);
  parts.push(...b.after, foot, `— ${shop}`);
  return `${parts.join('\n\n')}\n`;
}

const esc = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

/** Inline styles only: mail clients drop <style> blocks and never load anything external. */
function htmlPart(b: Body, foot: string, shop: string, subject: string): string {
  const p = (t: string): string => `<p style="margin:0 0 16px">${esc(t)}</p>`;
  const rows = b.rows
    .map(
      ([l, v]) =>
        `<tr><td style="padding:6px 12px 6px 0;border-top:1px solid #e3e6ea;color:#5d6675">${esc(l)}</td><td style="padding:6px 0;border-top:1px solid #e3e6ea;text-align:right;white-space:nowrap">${esc(v)}</td></tr>`,
    )
    .join('');
  const table = rows
    ? `<table role="presentation" style="width:100%;border-collapse:collapse;margin:0 0 16px">${rows}</table>`
    : '';
  const action = b.action
    ? `<p style="margin:0 0 16px"><a href="${esc(b.action.url)}" style="display:inline-block;background:#2f5bea;color:#fff;padding:10px 18px;border-radius:8px;text-decoration:none;font-weight:600">${esc(b.action.label)}</a></p><p style="margin:0 0 16px;font-size:13px;color:#5d6675">${esc(b.action.url)}</p>`
    : '';
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${esc(subject)}</title></head>
<body style="margin:0;background:#f4f5f7;color:#1d2330;font:16px/1.5 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif">
<div style="max-width:560px;margin:0 auto;padding:24px 16px"><div style="background:#fff;border:1px solid #d9dde3;border-radius:12px;padding:24px">
${p(b.greeting)}${b.paragraphs.map(p).join('')}${table}${action}${b.after.map(p).join('')}${p(foot)}<p style="margin:0">— ${esc(shop)}</p>
</div></div></body></html>`;
}
