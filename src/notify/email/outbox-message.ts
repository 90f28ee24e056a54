import type { CustomerEmailRow, MerchantRow } from '../../store/store.js';
import type { CustomerEmail, EmailSender } from './message.js';

/**
 * A stored customer email back into the message compose.ts renders: the facts kept with the
 * row, and the sender as the merchant is now (its name, emailFrom and support email at delivery,
 * so a correction reaches emails still waiting).
 */

/** Why an email cannot go out now; an operator's `email resend` retries it once fixed. */
export function unsendable(m: MerchantRow | undefined): string | undefined {
  if (!m) return 'merchant not found';
  if (!m.emailFrom) return 'the merchant has no emailFrom (merchant update --email-from)';
  if (m.customerEmails !== 'on') return 'the merchant turned customer emails off';
  return undefined;
}

export function senderOf(m: MerchantRow & { emailFrom: string }): EmailSender {
  return {
    merchantName: m.name,
    emailFrom: m.emailFrom,
    ...(m.supportEmail ? { supportEmail: m.supportEmail } : {}),
  };
}

/** The message of a stored row, or undefined when its facts cannot make one (a damaged row). */
export function messageOf(row: CustomerEmailRow, sender: EmailSender): CustomerEmail | undefined {
  let facts: unknown;
  try {
    facts = JSON.parse(row.details);
  } catch {
    return undefined;
  }
  if (typeof facts !== 'object' || facts === null) return undefined;
  // The facts were written by this module's counterpart (services/customer-email.ts) for this kind.
  return { ...(facts as object), kind: row.kind, to: row.recipient, sender } as CustomerEmail;
}
