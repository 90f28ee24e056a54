import { timingSafeEqual } from 'node:crypto';
import type { RetiredKey, Vault } from './crypto.js';

/**
 * A key check value: a derived key (HMAC of a fixed label under the vault key) recorded in the
 * database, so opening it with another key is refused at once, not discovered by a renewal that
 * cannot decrypt a card. It reveals nothing of the key (HMAC-SHA256 is one-way).
 */
export function keyCheckValue(vault: Vault): string {
  return vault.derive('vault-key-check-value').toString('hex');
}

export function sameCheckValue(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return x.length === y.length && timingSafeEqual(x, y);
}

/** The derived keys a rotation keeps the earlier values of (what each protects: vault/fingerprint.ts, http/pages/csrf.ts). */
export const FINGERPRINT_PURPOSE = 'request-fingerprint';
export const CSRF_PURPOSE = 'hosted-page-csrf';

/**
 * The retired keys after a rotation away from `vault`, taken at real time `wall`:
 *  - fingerprint keys are kept for good, the one being retired first: idempotency rows never
 *    expire (a requestId is idempotent for good, a v1 signature can be replayed at any time), and
 *    a row written under a key can only be recognised under that key. Each rotation adds one.
 *  - the CSRF key being retired is kept `formLifetimeMs`, the longest a page rendered before the
 *    rotation stays usable; earlier ones whose time is up are dropped.
 */
export function retiredAfterRotation(vault: Vault, wall: number, formLifetimeMs: number): Map<string, RetiredKey[]> {
  return new Map([
    [FINGERPRINT_PURPOSE, [{ key: vault.derive(FINGERPRINT_PURPOSE) }, ...vault.retired(FINGERPRINT_PURPOSE)]],
    [
      CSRF_PURPOSE,
      [
        { key: vault.derive(CSRF_PURPOSE), until: wall + formLifetimeMs },
        ...vault.retired(CSRF_PURPOSE).filter((k) => k.until === undefined || k.until > wall),
      ],
    ],
  ]);
}

interface SealedRetired {
  v: 2;
  retired: Record<string, { k: string; until?: number }[]>;
}

export function sealRetired(keys: ReadonlyMap<string, readonly RetiredKey[]>, under: Vault): string {
  const body: SealedRetired = {
    v: 2,
    retired: Object.fromEntries(
      [...keys].map(([p, list]) => [
        p,
        list.map((r) => ({ k: r.key.toString('base64'), ...(r.until === undefined ? {} : { until: r.until }) })),
      ]),
    ),
  };
  return under.encrypt(JSON.stringify(body));
}

/**
 * Databases rotated by earlier versions hold `{purpose: key}`: keys that were pinned, i.e. still
 * used for new fingerprints and CSRF tokens after the rotation. That fingerprint key becomes the
 * retired one (every row so far was written under it). That CSRF key is dropped: its forms were
 * rendered before the upgrade, which stopped every process, and when is not recorded — keeping it
 * would accept forms signed with a leaked key for good; such a form asks to be reloaded once.
 */
export function openRetired(sealed: string, vault: Vault): Map<string, RetiredKey[]> {
  const parsed = JSON.parse(vault.decrypt(sealed)) as SealedRetired | Record<string, string>;
  if (parsed.v === 2) {
    const { retired } = parsed as SealedRetired;
    return new Map(
      Object.entries(retired).map(([p, list]) => [
        p,
        list.map((r) => ({ key: Buffer.from(r.k, 'base64'), ...(r.until === undefined ? {} : { until: r.until }) })),
      ]),
    );
  }
  const pinned = (parsed as Record<string, string>)[FINGERPRINT_PURPOSE];
  return new Map(pinned === undefined ? [] : [[FINGERPRINT_PURPOSE, [{ key: Buffer.from(pinned, 'base64') }]]]);
}
