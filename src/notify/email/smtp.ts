import { isIP } from 'node:net';
import nodemailer, { type SMTPConnectionOptions } from 'nodemailer';
import type { ComposedEmail } from './compose.js';
import { smtpUrlProblem } from './smtp-url.js';

/**
 * Customer email over SMTP (PAYGATE_SMTP_URL, SPEC §17) with nodemailer. The outbox needs one
 * answer per attempt: `sent` only when the server accepted the message (its 250 after DATA),
 * anything else — a refusal, a dropped connection, a timeout, a TLS failure — is `retry`, so an
 * email is never marked sent that the server did not take, and one that it took is never sent
 * again.
 */

export type SendOutcome =
  | { outcome: 'sent'; messageId: string; response: string }
  | { outcome: 'retry'; error: string };

export interface MailSender {
  send(mail: ComposedEmail): Promise<SendOutcome>;
  close(): void;
}

export interface SmtpTimeouts {
  /** To open the TCP connection. */
  connectMs: number;
  /** Between any two steps of the conversation. */
  idleMs: number;
  /** For the whole message, however the server paces its answers. */
  totalMs: number;
}

export const DEFAULT_SMTP_TIMEOUTS: SmtpTimeouts = { connectMs: 10_000, idleMs: 30_000, totalMs: 120_000 };

export class SmtpUrlError extends Error {
  constructor(reason: string) {
    super(`PAYGATE_SMTP_URL ${reason}`);
    this.name = 'SmtpUrlError';
  }
}

type SmtpOptions = SMTPConnectionOptions & { auth?: { user: string; pass: string } };

function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '');
  if (h === 'localhost') return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  return h === '::1';
}

/**
 * `smtp://user:pass@host:587` (STARTTLS, required) or `smtps://user:pass@host:465` (TLS from
 * the first byte). Certificates are verified against the host name. The one exception is a
 * relay on the same machine (127.0.0.0/8, ::1, localhost — a local postfix, for example): the
 * message never leaves the machine there, so TLS is used when offered and not required.
 */
export function smtpOptions(url: string, timeouts: SmtpTimeouts = DEFAULT_SMTP_TIMEOUTS): SmtpOptions {
  const problem = smtpUrlProblem(url);
  if (problem) throw new SmtpUrlError(problem);
  const u = new URL(url);
  const secure = u.protocol === 'smtps:';
  const host = u.hostname.replace(/^\[|\]$/g, '');
  const local = isLoopback(u.hostname);
  const user = decodeURIComponent(u.username);
  const options: SmtpOptions = {
    host,
    port: u.port ? Number(u.port) : secure ? 465 : 587,
    secure,
    requireTLS: !secure && !local,
    tls: local ? { rejectUnauthorized: false } : { rejectUnauthorized: true, servername: host },
    connectionTimeout: timeouts.connectMs,
    greetingTimeout: timeouts.idleMs,
    socketTimeout: timeouts.idleMs,
    // A relay on this machine is the one internal address we mean to reach.
    allowInternalNetworkInterfaces: local,
  };
  if (user) options.auth = { user, pass: decodeURIComponent(u.password) };
  return options;
}

/** One line an operator can act on: the SMTP reply or the network error, without the credentials. */
function describe(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  const x = e as Error & { code?: string; responseCode?: number; response?: string };
  const reply = x.response?.split(/\r?\n/)[0];
  if (reply) return `${x.code ?? 'SMTP'}: ${reply}`.slice(0, 500);
  return `${x.code ? `${x.code}: ` : ''}${x.message.split(/\r?\n/)[0]}`.slice(0, 500);
}

export function smtpSender(url: string, timeouts: SmtpTimeouts = DEFAULT_SMTP_TIMEOUTS): MailSender {
  const transport = nodemailer.createTransport(smtpOptions(url, timeouts));
  return {
    async send(mail) {
      try {
        const info = await transport.sendMail({
          from: mail.from,
          to: mail.to,
          ...(mail.replyTo ? { replyTo: mail.replyTo } : {}),
          subject: mail.subject,
          text: mail.text,
          html: mail.html,
          attachments: mail.attachments,
          signal: AbortSignal.timeout(timeouts.totalMs),
        });
        // Accepted means the server answered 250 to the message's data with our one recipient on it.
        if (info.rejected.length > 0 || info.accepted.length === 0)
          return { outcome: 'retry', error: `recipient refused: ${info.response}` };
        return { outcome: 'sent', messageId: info.messageId, response: info.response };
      } catch (e) {
        return { outcome: 'retry', error: describe(e) };
      }
    },
    close() {
      transport.close();
    },
  };
}
