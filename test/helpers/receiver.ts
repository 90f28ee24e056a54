import { createHmac, createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One callback as the merchant's server saw it. */
export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  rawBody: string;
  body: Record<string, string>;
  /** Wall time of arrival (Date.now()), for the hang test only. */
  arrivedAt: number;
}

/** What the receiver answers: a status, or 'hang' (never answers). */
export type Answer = number | 'hang';

export interface Receiver {
  url: (path?: string) => string;
  received: Received[];
  /** Replace the answer function (per request). */
  answer: (fn: (r: Received) => Answer) => void;
  close: () => Promise<void>;
}

/**
 * The first callback `match` finds, waiting for it (serve delivers on its own timer): undefined after
 * `ms`. A subscription's callbacks go out in order, so a test that runs `renew --at` and then looks
 * for the renewal's callback first waits for the first charge's: `renew` does not send a later
 * event past an earlier one still being delivered.
 */
export async function receivedWhen(
  rx: Receiver,
  match: (r: Received) => boolean,
  ms = 30_000,
): Promise<Received | undefined> {
  const until = Date.now() + ms;
  for (;;) {
    const found = rx.received.find(match);
    if (found || Date.now() > until) return found;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A real merchant callback endpoint on 127.0.0.1, started by the test. */
export async function startReceiver(answerFn: (r: Received) => Answer = () => 200): Promise<Receiver> {
  let answer = answerFn;
  const received: Received[] = [];
  const hanging = new Set<ServerResponse>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const rawBody = Buffer.concat(chunks).toString('utf8');
      const r: Received = {
        path: (req.url ?? '/').split('?')[0] ?? '/',
        headers: req.headers,
        rawBody,
        body: JSON.parse(rawBody) as Record<string, string>,
        arrivedAt: Date.now(),
      };
      received.push(r);
      const a = answer(r);
      if (a === 'hang') {
        hanging.add(res);
        return;
      }
      res.writeHead(a, { 'content-type': 'text/plain' });
      res.end(a >= 200 && a < 300 ? 'OK' : 'nope');
    });
  });
  server.keepAliveTimeout = 500;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: (path = '/notify') => `http://127.0.0.1:${port}${path}`,
    received,
    answer: (fn) => {
      answer = fn;
    },
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/*
 * An INDEPENDENT verifier of SPEC §8 callback signatures, written from the SPEC text (not
 * importing src/domain/signature.ts): what a merchant would write.
 */

/** v1: every field but sign, skipping empty ones, sorted, name=value&…, then "POST PATH\n" + joined + "&key=" + secret. */
export function verifyV1Callback(path: string, body: Record<string, string>, secret: string): boolean {
  const { sign, ...fields } = body;
  if (typeof sign !== 'string') return false;
  const joined = Object.keys(fields)
    .filter((k) => fields[k] !== '' && fields[k] !== null && fields[k] !== undefined)
    .sort()
    .map((k) => `${k}=${fields[k]}`)
    .join('&');
  const expected = createHash('sha256').update(`POST ${path}\n${joined}&key=${secret}`, 'utf8').digest('hex');
  return expected.length === sign.length && timingSafeEqual(Buffer.from(expected), Buffer.from(sign));
}

/** v2: header "t=<unix s>,v2=<hex>", hex = HMAC-SHA256(secret, t + "." + rawBody); returns t when valid. */
export function verifyV2Callback(
  header: string | string[] | undefined,
  rawBody: string,
  secret: string,
): number | undefined {
  if (typeof header !== 'string') return undefined;
  const parts = Object.fromEntries(header.split(',').map((p) => p.split('=') as [string, string]));
  const t = parts.t;
  const v2 = parts.v2;
  if (!t || !v2 || !/^\d+$/.test(t)) return undefined;
  const expected = createHmac('sha256', secret).update(`${t}.${rawBody}`, 'utf8').digest('hex');
  return expected.length === v2.length && timingSafeEqual(Buffer.from(expected), Buffer.from(v2))
    ? Number(t)
    : undefined;
}
