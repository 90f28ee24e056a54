import { createHmac } from 'node:crypto';
import { sha256Hex, v1Joined } from '../domain/signature.js';
import type { Vault } from './crypto.js';

/**
 * Idempotency fingerprints of requests (SPEC §5, §10). A request may carry card data, so a plain
 * hash of it is a brute-force target (PAN and CVV fall out of one row in seconds given the BIN,
 * last four and amount beside it): every fingerprint is an HMAC under a key derived from the
 * vault key, which the database does not hold.
 *
 * The HMAC is taken over the plain SHA-256 hex of the canonical v1 string rather than over the
 * string itself, so that rows written before fingerprints were keyed can be rekeyed in place
 * (store/fingerprints.ts) without the requests, and still match the same request afterwards.
 */
const PURPOSE = 'request-fingerprint';

export type Fingerprinter = (plainSha256Hex: string) => string;

/** Keys an existing plain SHA-256 hex into the stored form. */
export function fingerprinter(vault: Vault): Fingerprinter {
  const key = vault.derive(PURPOSE);
  return (plain) => createHmac('sha256', key).update(plain, 'utf8').digest('hex');
}

/** The stored fingerprint of a request: every top-level field but `sign`, as v1 canonicalises them. */
export function requestFingerprint(vault: Vault, params: Record<string, unknown>): string {
  return fingerprinter(vault)(sha256Hex(v1Joined(params)));
}
