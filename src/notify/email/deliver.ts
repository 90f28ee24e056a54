import { hostname } from 'node:os';
import type { Ctx } from '../../ctx.js';
import { randomToken } from '../../domain/ids.js';
import type { ClaimedEmail, CustomerEmailRow, EmailOutcome } from '../../store/store.js';
import { pause } from '../pause.js';
import { MAX_ATTEMPTS, nextAttemptAt } from '../schedule.js';
import { composeEmail } from './compose.js';
import type { CustomerEmail, EmailSender } from './message.js';
import { messageOf, senderOf, unsendable } from './outbox-message.js';
import type { MailSender, SmtpTimeouts } from './smtp.js';

/**
 * Customer email delivery (SPEC §17): claim due PENDING emails with a lease, compose each, send
 * it over SMTP, record the outcome — on the callbacks' retry schedule (1 min … 24 h, then DEAD).
 * At least once: an email is SENT only after the server's 250 for it; a crash between that reply
 * and the record sends it again after the lease, never loses it.
 */

/**
 * A receipt's or credit note's message and PDF, built from the issued document at delivery. The
 * documents service supplies it (services/documents/email-delivery.ts): delivery knows the
 * outbox and SMTP, not how a document is read back or laid out. Undefined: the document is gone.
 */
export type DocumentMessage = (
  ctx: Ctx,
  row: CustomerEmailRow,
  sender: EmailSender,
) => Promise<{ message: CustomerEmail; pdf?: Buffer } | undefined>;

export interface EmailDeliverOptions {
  /** How a receipt or credit note is built (the other kinds carry their whole message in the row). */
  documentMessage: DocumentMessage;
  /** The delivery clock (renew --at passes its test clock's time); default ctx.clock.now() at each step. */
  now?: number;
  /** Most emails attempted in this call. */
  limit?: number;
  owner?: string;
  /** Sends in flight at once (default 4). */
  concurrency?: number;
  /** Tests shorten the SMTP timeouts; production uses smtp.ts's. */
  timeouts?: SmtpTimeouts;
}

export interface EmailDeliverSummary {
  sent: number;
  failed: number;
  dead: number;
}

/** Longer than an SMTP attempt can take (smtp.ts: 2 min for a whole message), with room to spare. */
export const EMAIL_LEASE_MS = 5 * 60_000;

let processOwner: string | undefined;
function defaultOwner(): string {
  processOwner ??= `${hostname()}:${process.pid}:${randomToken(6)}`;
  return processOwner;
}

/** One pass over the due emails; nothing at all without PAYGATE_SMTP_URL (emails written earlier wait). */
export async function deliverDueEmails(
  ctx: Ctx,
  opts: EmailDeliverOptions,
  stopping: () => boolean = () => false,
): Promise<EmailDeliverSummary> {
  const summary: EmailDeliverSummary = { sent: 0, failed: 0, dead: 0 };
  const url = ctx.config.smtpUrl;
  if (url === undefined) return summary;
  const now = (): number => opts.now ?? ctx.clock.now();
  const owner = opts.owner ?? defaultOwner();
  const concurrency = Math.max(1, opts.concurrency ?? 4);
  let left = opts.limit ?? Number.POSITIVE_INFINITY;
  let sender: MailSender | undefined;
  try {
    while (left > 0 && !stopping()) {
      const at = now();
      // Due on the delivery clock; the lease on real time, shared with every other deliverer.
      const wall = ctx.clock.wall();
      const max = Math.min(concurrency, left);
      const claimed = await ctx.store.transaction((tx) =>
        tx.claimDueEmails({ now: at, owner, leaseNow: wall, leaseUntil: wall + EMAIL_LEASE_MS, max }),
      );
      if (claimed.length === 0) break;
      left -= claimed.length;
      // nodemailer loads only once there is something to send.
      if (!sender) sender = (await import('./smtp.js')).smtpSender(url, opts.timeouts);
      const s = sender;
      const outcomes = await Promise.all(
        claimed.map((row) => deliverOne(ctx, row, owner, now, s, opts.documentMessage)),
      );
      for (const o of outcomes) {
        if (o === 'SENT') summary.sent++;
        else if (o === 'DEAD') summary.dead++;
        else if (o === 'PENDING') summary.failed++;
      }
    }
  } finally {
    sender?.close();
  }
  return summary;
}

async function deliverOne(
  ctx: Ctx,
  row: ClaimedEmail,
  owner: string,
  now: () => number,
  mail: MailSender,
  documentMessage: DocumentMessage,
): Promise<EmailOutcome['status'] | 'LOST'> {
  const finish = async (o: Omit<EmailOutcome, 'now'>): Promise<EmailOutcome['status'] | 'LOST'> => {
    const at = now();
    const ok = await ctx.store.transaction((tx) => tx.finishEmailAttempt(row.id, owner, { ...o, now: at }));
    return ok ? o.status : 'LOST';
  };
  const dead = (error: string) => finish({ status: 'DEAD', attempts: row.attempts, nextAttemptAt: null, error });
  const retryOrDead = (error: string) => {
    const attempts = row.attempts + 1;
    const next = nextAttemptAt(attempts, now());
    return finish({
      status: next === undefined ? 'DEAD' : 'PENDING',
      attempts,
      nextAttemptAt: next ?? null,
      error: next === undefined ? `${error} (gave up after ${MAX_ATTEMPTS} attempts)` : error,
    });
  };

  const merchant = await ctx.store.getMerchant(row.merchantId);
  const refused = unsendable(merchant);
  if (refused || !merchant?.emailFrom) return dead(refused ?? 'the merchant has no emailFrom');
  const sender = senderOf({ ...merchant, emailFrom: merchant.emailFrom });
  let composed: ReturnType<typeof composeEmail>;
  try {
    const built = isDocumentEmail(row.kind)
      ? await documentMessage(ctx, row, sender)
      : { message: messageOf(row, sender) };
    if (!built?.message) return dead('stored email could not be read');
    composed = composeEmail(built.message, ctx.zone, now(), 'pdf' in built ? built.pdf : undefined);
  } catch {
    // A PDF queue momentarily full, or a document that cannot be laid out: tried again on the schedule.
    return retryOrDead(`a ${row.kind} email could not be composed`);
  }
  const result = await mail.send(composed);
  if (result.outcome === 'sent')
    return finish({ status: 'SENT', attempts: row.attempts + 1, nextAttemptAt: null, error: null });
  return retryOrDead(result.error);
}

const isDocumentEmail = (kind: ClaimedEmail['kind']): boolean => kind === 'receipt' || kind === 'credit-note';

export interface EmailLoop {
  stop(): Promise<void>;
}

/** Continuous delivery for `serve`: a pass, then a pause of `intervalMs`, until stopped. */
export function startEmailLoop(
  ctx: Ctx,
  opts: { documentMessage: DocumentMessage; intervalMs?: number; onError?: (e: unknown) => void },
): EmailLoop {
  const halt = new AbortController();
  const done = (async () => {
    while (!halt.signal.aborted) {
      try {
        await deliverDueEmails(ctx, { documentMessage: opts.documentMessage }, () => halt.signal.aborted);
      } catch (e) {
        opts.onError?.(e);
      }
      await pause(opts.intervalMs ?? 1000, halt.signal);
    }
  })();
  return {
    async stop() {
      halt.abort();
      await done;
    },
  };
}
