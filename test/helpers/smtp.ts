import type { AddressInfo, Socket } from 'node:net';
import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer, type SMTPServerSession } from 'smtp-server';

/**
 * A real SMTP server on 127.0.0.1 (the smtp-server package: a full SMTP implementation with
 * STARTTLS) for the customer-email tests. Every message it accepts is parsed with mailparser,
 * so tests check headers, parts and attachments as a mail client would see them. It can also
 * misbehave the ways real servers do, at the step where it hurts:
 *  - `refuse-recipient`: 550 to RCPT TO (an address the server will not take);
 *  - `refuse-message`: 451 after the whole message was sent (greylisting, a full queue);
 *  - `drop`: closes the connection once the message was sent, before answering it;
 *  - `hang`: takes the message and never answers (the client's timeout must end it);
 *  - `hang-greeting`: accepts the connection and never greets.
 */

export type SmtpMode = 'accept' | 'refuse-recipient' | 'refuse-message' | 'drop' | 'hang' | 'hang-greeting';

export interface ReceivedMail {
  envelope: { from: string; to: string[] };
  /** The session was upgraded with STARTTLS (or was TLS from the start). */
  secure: boolean;
  user?: string;
  mail: ParsedMail;
}

export interface SmtpHarness {
  port: number;
  /** smtp://[user:pass@]127.0.0.1:port */
  url: string;
  received: ReceivedMail[];
  /** Messages whose data reached the server, whatever it answered. */
  attempts: number;
  mode: SmtpMode;
  close(): Promise<void>;
}

export interface SmtpHarnessOptions {
  /** Require AUTH with these credentials. */
  auth?: { user: string; pass: string };
  mode?: SmtpMode;
}

function smtpError(code: number, message: string): Error & { responseCode: number } {
  return Object.assign(new Error(message), { responseCode: code });
}

export async function startSmtp(opts: SmtpHarnessOptions = {}): Promise<SmtpHarness> {
  const sockets = new Map<number, Socket>();
  const harness: SmtpHarness = {
    port: 0,
    url: '',
    received: [],
    attempts: 0,
    mode: opts.mode ?? 'accept',
    close: async () => {
      for (const s of sockets.values()) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const socketOf = (session: SMTPServerSession): Socket | undefined => sockets.get(session.remotePort);

  const server = new SMTPServer({
    // smtp-server's own self-signed certificate: STARTTLS works, the loopback client does not verify it.
    authOptional: !opts.auth,
    disabledCommands: opts.auth ? [] : ['AUTH'],
    logger: false,
    onConnect(_session, callback) {
      if (harness.mode !== 'hang-greeting') callback();
    },
    onAuth(auth, _session, callback) {
      if (opts.auth && auth.username === opts.auth.user && auth.password === opts.auth.pass)
        callback(null, { user: auth.username });
      else callback(smtpError(535, 'authentication failed'));
    },
    onRcptTo(_address, _session, callback) {
      if (harness.mode === 'refuse-recipient') callback(smtpError(550, 'no such user here'));
      else callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        harness.attempts += 1;
        const mode = harness.mode;
        if (mode === 'refuse-message') return callback(smtpError(451, 'try again later'));
        if (mode === 'drop') return socketOf(session)?.destroy();
        if (mode === 'hang') return;
        simpleParser(Buffer.concat(chunks)).then(
          (mail) => {
            harness.received.push({
              envelope: {
                from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
                to: session.envelope.rcptTo.map((r) => r.address),
              },
              secure: session.secure,
              ...(typeof session.user === 'string' ? { user: session.user } : {}),
              mail,
            });
            callback();
          },
          (e: unknown) => callback(e instanceof Error ? e : new Error(String(e))),
        );
      });
    },
  });
  server.server.on('connection', (socket: Socket) => {
    const port = socket.remotePort ?? 0;
    sockets.set(port, socket);
    socket.on('close', () => sockets.delete(port));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  harness.port = (server.server.address() as AddressInfo).port;
  const cred = opts.auth ? `${encodeURIComponent(opts.auth.user)}:${encodeURIComponent(opts.auth.pass)}@` : '';
  harness.url = `smtp://${cred}127.0.0.1:${harness.port}`;
  return harness;
}
