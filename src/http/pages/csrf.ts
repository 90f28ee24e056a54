import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * CSRF tokens of the hosted pages: an HMAC of the page kind and token under a key made when the
 * process starts. A form therefore only works against the process that rendered it (a restart
 * means reloading the page), and cannot be forged for another page.
 */
export interface Csrf {
  issue(kind: string, token: string): string;
  check(kind: string, token: string, given: unknown): boolean;
}

export function createCsrf(key: Buffer = randomBytes(32)): Csrf {
  const mac = (kind: string, token: string) => createHmac('sha256', key).update(`${kind}:${token}`).digest('base64url');
  return {
    issue: mac,
    check(kind, token, given) {
      if (typeof given !== 'string') return false;
      const want = Buffer.from(mac(kind, token));
      const got = Buffer.from(given);
      return got.length === want.length && timingSafeEqual(got, want);
    },
  };
}
