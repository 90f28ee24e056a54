import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Clock } from '../../domain/clock.js';
import type { RetiredKey, Vault } from '../../vault/crypto.js';
import { CSRF_PURPOSE } from '../../vault/key-check.js';

/**
 * CSRF tokens of the hosted pages: an HMAC of the page kind and token under a key derived from the
 * database's vault key. So a form rendered before a restart, or by another serve instance on the
 * same database, still posts; it cannot be forged without the key, nor moved to another page.
 * After a vault key rotation tokens are issued under the new key's; one of the old key is taken
 * only until its `until` (a form rendered before the rotation, within a page's lifetime), so a
 * leaked old key forges nothing for long.
 */
export interface Csrf {
  issue(kind: string, token: string): string;
  check(kind: string, token: string, given: unknown): boolean;
}

export function createCsrf(key: Buffer, retired: readonly RetiredKey[] = [], wall: () => number = Date.now): Csrf {
  const mac = (k: Buffer, kind: string, token: string) =>
    createHmac('sha256', k).update(`${kind}:${token}`).digest('base64url');
  const same = (got: Buffer, want: string) => {
    const w = Buffer.from(want);
    return got.length === w.length && timingSafeEqual(got, w);
  };
  return {
    issue: (kind, token) => mac(key, kind, token),
    check(kind, token, given) {
      if (typeof given !== 'string') return false;
      const got = Buffer.from(given);
      if (same(got, mac(key, kind, token))) return true;
      const now = wall();
      return retired.some((r) => r.until !== undefined && now < r.until && same(got, mac(r.key, kind, token)));
    },
  };
}

/** The hosted pages' CSRF tokens under a vault's keys, retired ones judged on real time. */
export function csrfOf(vault: Vault, clock: Clock): Csrf {
  return createCsrf(vault.derive(CSRF_PURPOSE), vault.retired(CSRF_PURPOSE), () => clock.wall());
}
