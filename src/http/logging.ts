import type { FastifyRequest, FastifyServerOptions } from 'fastify';
import { splitUrl } from './body.js';

/** Paths pino blanks out wherever they appear in a log object (defence in depth: bodies are never logged). */
const REDACT = [
  'cardInfo',
  'cardNumber',
  'cvv',
  'secret',
  'sign',
  'authorization',
  '*.cardInfo',
  '*.cardNumber',
  '*.cvv',
  '*.secret',
  '*.sign',
  '*.authorization',
  'req.headers.authorization',
  'req.headers["x-paygate-signature"]',
  'req.headers.cookie',
  'headers.authorization',
  'headers["x-paygate-signature"]',
];

/**
 * Query parameters whose values never reach the log: paygate's own, and any name ending in
 * `secret` or `token` — Stripe's 3DS return adds `payment_intent_client_secret` (and
 * `setup_intent_client_secret`), which Stripe asks never to log.
 */
const SECRET_QUERY = /^(sign|cardinfo|cardnumber|cvv|authorization|apikey)$|(^|_)(secret|token)$/i;

/** Route parameters that are credentials: the apiKey of payment endpoints, the page token, the portal return's sealed token. */
const CREDENTIAL_PARAMS = new Set(['apiKey', 'token', 'sealed']);

/** Enough of a key to tell merchants (or pages) apart in the logs, not enough to use it. */
const KEEP = 6;
const cut = (text: string): string => `${text.slice(0, KEEP)}…`;

/**
 * A path segment longer than this is cut in the log of a request no route matched: there is no
 * route to say which segment is a credential, and every apiKey and page token is longer.
 */
const LONG_SEGMENT = 12;

function redactQuery(rawQuery: string): string {
  return rawQuery
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = eq < 0 ? pair : pair.slice(0, eq);
      let decoded = name;
      try {
        decoded = decodeURIComponent(name.replace(/\+/g, ' '));
      } catch {
        // keep the raw name
      }
      return SECRET_QUERY.test(decoded) ? `${name}=[redacted]` : pair;
    })
    .join('&');
}

const withQuery = (path: string, rawQuery: string): string =>
  rawQuery === '' ? path : `${path}?${redactQuery(rawQuery)}`;

/**
 * A URL for the logs when nothing is known about it but its text: whatever the form of the
 * request-target (absolute-form, `//` paths, percent-encoded), scheme and authority are dropped
 * and every long path segment is cut.
 */
export function redactUrl(url: string): string {
  const { path, rawQuery } = splitUrl(url);
  const shown = path
    .split('/')
    .map((segment) => (segment.length > LONG_SEGMENT ? cut(segment) : segment))
    .join('/');
  return withQuery(shown, rawQuery);
}

/**
 * A request's URL for its log line. A routed request is logged as its route pattern with the
 * parameters the router parsed, credentials cut — so no spelling of the request-target can carry
 * a full apiKey or page token into the logs past the router.
 */
export function logUrl(req: FastifyRequest): string {
  const pattern = req.routeOptions.url;
  if (pattern === undefined || pattern === '') return redactUrl(req.url);
  const params = (req.params ?? {}) as Record<string, unknown>;
  const path = pattern.replace(/:(\w+)/g, (_m, name: string) => {
    const value = String(params[name] ?? '');
    return CREDENTIAL_PARAMS.has(name) ? cut(value) : encodeURIComponent(value);
  });
  return withQuery(path, splitUrl(req.url).rawQuery);
}

/** What pino writes its lines to. */
export interface LogStream {
  write(line: string): unknown;
}

/**
 * pino's options for the server's logger; `stream` is where its lines go (serve: stdoutLog(),
 * which drops lines it cannot write rather than hang), pino's own stdout destination without it.
 */
export function loggerOptions(level: string, stream?: LogStream): FastifyServerOptions['logger'] {
  return {
    level,
    ...(stream ? { stream } : {}),
    redact: { paths: REDACT, censor: '[redacted]' },
    serializers: {
      req: (req: { method: string; url: string; ip?: string }) => ({
        method: req.method,
        url: redactUrl(req.url),
        ip: req.ip,
      }),
    },
  };
}
