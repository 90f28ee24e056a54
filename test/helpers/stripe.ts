import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';
import type { StripeStandin } from './stripe-standin/index.js';

/** The official client pointed at the stand-in, as PAYGATE_STRIPE_API_URL will point it. */
export function officialClient(s: StripeStandin, opts: { key?: string; timeoutMs?: number } = {}): Stripe {
  return new Stripe(opts.key ?? s.account.secretKey, {
    host: s.host,
    port: s.port,
    protocol: 'http',
    maxNetworkRetries: 0,
    ...(opts.timeoutMs ? { timeout: opts.timeoutMs } : {}),
  });
}

export const NEXT_YEAR = new Date().getUTCFullYear() + 1;

export function cardPm(client: Stripe, number: string, cvc = '123'): Promise<Stripe.PaymentMethod> {
  return client.paymentMethods.create({ type: 'card', card: { number, exp_month: 12, exp_year: NEXT_YEAR, cvc } });
}

/** A page that the 3DS hand-over returns to: records each URL it is asked for. */
export interface ReturnPage {
  url: string;
  hits: URL[];
  close: () => Promise<void>;
}

export async function startReturnPage(): Promise<ReturnPage> {
  const hits: URL[] = [];
  const server: Server = createServer((req, res) => {
    hits.push(new URL(req.url ?? '/', 'http://127.0.0.1'));
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('back at the shop');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/return`,
    hits,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** What a shopper's browser does on the stand-in's 3DS page: load it, press Complete or Fail. */
export async function answerChallenge(redirectUrl: string, choice: 'pass' | 'fail'): Promise<Response> {
  const page = await fetch(redirectUrl);
  const html = await page.text();
  const form = [...html.matchAll(/<form method="post" action="([^"]+)">(.*?)<\/form>/gs)].find((m) =>
    (m[2] ?? '').includes(`value="${choice}"`),
  );
  if (!form) throw new Error(`no ${choice} form on the 3DS page`);
  const fields = new URLSearchParams();
  for (const m of (form[2] ?? '').matchAll(/name="([^"]+)" value="([^"]*)"/g))
    fields.set(
      m[1] ?? '',
      (m[2] ?? '').replace(/&#(\d+);/g, (_e, n: string) => String.fromCharCode(Number(n))),
    );
  return fetch(new URL(form[1] ?? '', redirectUrl), { method: 'POST', body: fields, redirect: 'follow' });
}

/** The error a call rejects with (the test fails if it resolves). */
export async function rejected<E extends Error = Stripe.errors.StripeError>(p: Promise<unknown>): Promise<E> {
  try {
    await p;
  } catch (err) {
    return err as E;
  }
  throw new Error('expected the call to fail');
}
