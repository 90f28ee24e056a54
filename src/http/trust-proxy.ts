import { isIP } from 'node:net';

/** proxy-addr's (fastify's) names for address ranges, accepted as they are. */
const NAMED = new Set(['loopback', 'linklocal', 'uniquelocal']);

/**
 * `--trust-proxy` / PAYGATE_TRUST_PROXY: a comma-separated list of proxy addresses or CIDR ranges
 * (`127.0.0.1`, `10.0.0.0/8`, `::1`, `loopback`). Returns the list, or a message saying what is wrong.
 * Only requests arriving from these addresses have their X-Forwarded-For believed.
 */
export function parseTrustProxy(text: string): { ok: true; list: string[] } | { ok: false; message: string } {
  const list = text
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
  if (list.length === 0)
    return { ok: false, message: 'give at least one address or CIDR range, e.g. 127.0.0.1 or 10.0.0.0/8' };
  for (const entry of list) {
    if (NAMED.has(entry)) continue;
    const [addr = '', bits, extra] = entry.split('/');
    const family = isIP(addr);
    const max = family === 4 ? 32 : 128;
    const bitsOk = bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= max);
    if (family === 0 || !bitsOk || extra !== undefined) {
      return {
        ok: false,
        message: `${JSON.stringify(entry)} is not an IP address or CIDR range (e.g. 127.0.0.1, 10.0.0.0/8, ::1, loopback)`,
      };
    }
  }
  return { ok: true, list };
}
