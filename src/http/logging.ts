import type { FastifyServerOptions } from 'fastify';

/** Paths pino blanks out wherever they appear in a log object (defence in depth: bodies are never logged). */
const REDACT = [
  'cardInfo', 'cardNumber', 'cvv', 'secret', 'sign', 'authorization',
  '*.cardInfo', '*.cardNumber', '*.cvv', '*.secret', '*.sign', '*.authorization',
  'req.headers.authorization', 'req.headers["x-paygate-signature"]', 'req.headers.cookie',
  'headers.authorization', 'headers["x-paygate-signature"]',
];

const SECRET_QUERY = /^(sign|cardinfo|cardnumber|cvv|secret|authorization)$/i;

/**
 * URLs in logs: API keys and page tokens are credentials, query values such as `sign` too.
 * Keep enough of a key to tell merchants apart.
 */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  const path = (q < 0 ? url : url.slice(0, q)).replace(
    /^\/(payment|v1|checkout|3ds)\/([^/]+)/,
    (_m, head: string, key: string) => `/${head}/${key.slice(0, 6)}…`,
  );
  if (q < 0) return path;
  const query = url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = eq < 0 ? pair : pair.slice(0, eq);
      let decoded = name;
      try {
        decoded = decodeURIComponent(name);
      } catch {
        // keep the raw name
      }
      return SECRET_QUERY.test(decoded) ? `${name}=[redacted]` : pair;
    })
    .join('&');
  return `${path}?${query}`;
}

export function loggerOptions(level: string): FastifyServerOptions['logger'] {
  return {
    level,
    redact: { paths: REDACT, censor: '[redacted]' },
    serializers: {
      req: (req: { method: string; url: string; ip?: string }) => ({ method: req.method, url: redactUrl(req.url), ip: req.ip }),
    },
  };
}
