import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * CSRF tokens of the hosted pages: an HMAC of the page kind and token under a key derived from the
 * database's vault key. So a form rendered before a restart, or by another serve instance on the
 * same database, still posts; it cannot be forged without the key, nor moved to another page.
 */
export interface Csrf {
  issue(kind: string, token: string): string;
  check(kind: string, token: string, given: unknown): boolean;
}

export function createCsrf(key: Buffer): Csrf {
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
