import { timingSafeEqual } from 'node:crypto';
import type { Vault } from './crypto.js';

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

/** Derived keys that must survive a rotation: fingerprints of past requests are keyed with one. */
export const PINNED_PURPOSES = ['request-fingerprint', 'hosted-page-csrf'] as const;

export function sealPinned(keys: ReadonlyMap<string, Buffer>, under: Vault): string {
  return under.encrypt(JSON.stringify(Object.fromEntries([...keys].map(([p, k]) => [p, k.toString('base64')]))));
}

export function openPinned(sealed: string, vault: Vault): Map<string, Buffer> {
  const parsed = JSON.parse(vault.decrypt(sealed)) as Record<string, string>;
  return new Map(Object.entries(parsed).map(([p, k]) => [p, Buffer.from(k, 'base64')]));
}
