import createClient, { type Client, type Middleware } from 'openapi-fetch';
import type { paths } from './paygate.js';

/**
 * A typed paygate client: openapi-fetch over the types openapi-typescript generated from
 * paygate's /openapi.json, plus a middleware that signs every request with signature version 2.
 */

export interface PaygateCredentials {
  /** Where paygate listens, e.g. https://pay.example.com */
  baseUrl: string;
  merchantId: string;
  apiKey: string;
  /** The merchant's secret (signatureVersion 2). */
  secret: string;
  /** Unix seconds; defaults to the system clock. */
  now?: () => number;
}

const encoder = new TextEncoder();

async function hmacSha256Hex(secret: string, text: string): Promise<string> {
  const key = await crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, [
    'sign',
  ]);
  const mac = await crypto.subtle.sign('HMAC', key, encoder.encode(text));
  return Array.from(new Uint8Array(mac), (b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * Signature version 2: X-Paygate-Signature: t=<unix seconds>,v2=<hex> where hex is
 * HMAC-SHA256(secret, t + "." + METHOD + "." + PATH + "." + PAYLOAD); PAYLOAD is the body of a
 * POST exactly as sent, the query string (without "?") of a GET.
 */
export function signingMiddleware(secret: string, now: () => number = () => Math.floor(Date.now() / 1000)): Middleware {
  return {
    async onRequest({ request }) {
      const url = new URL(request.url);
      const payload = request.method === 'GET' ? url.search.replace(/^\?/, '') : await request.clone().text();
      const t = now();
      const hex = await hmacSha256Hex(secret, `${t}.${request.method}.${url.pathname}.${payload}`);
      request.headers.set('X-Paygate-Signature', `t=${t},v2=${hex}`);
      return request;
    },
  };
}

export type PaygateClient = Client<paths>;

export function createPaygateClient(c: PaygateCredentials): PaygateClient {
  const client = createClient<paths>({ baseUrl: c.baseUrl });
  client.use(signingMiddleware(c.secret, c.now));
  return client;
}
