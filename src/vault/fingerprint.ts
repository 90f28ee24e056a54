import { createHmac } from 'node:crypto';
import { canonicalJson, sha256Hex, v1Joined } from '../domain/signature.js';
import type { Vault } from './crypto.js';

/**
 * Idempotency fingerprints of requests (SPEC §5, §10). A request may carry card data, so a plain
 * hash of it is a brute-force target (PAN and CVV fall out of one row in seconds given the BIN,
 * last four and amount beside it): every fingerprint is an HMAC under a key derived from the
 * vault key, which the database does not hold.
 *
 * The HMAC is taken over a plain SHA-256 hex rather than over the text itself, so that rows
 * written before fingerprints were keyed can be rekeyed in place (store/…/fingerprints.ts)
 * without the requests, and still match the same request afterwards.
 */
const PURPOSE = 'request-fingerprint';

/**
 * Fingerprints are taken over the request's canonical JSON (keys sorted, every value kept with
 * its type). Earlier versions took them over the v1 joined string, which escapes nothing: two
 * different requests (`failedUrl: "…?x=1", items: […]` and `failedUrl: "…?x=1&items=[…]"`) could
 * share one. The request behind a stored fingerprint is never kept, so old rows cannot be
 * migrated; instead new fingerprints carry this prefix, and a row without it — written by an
 * older version — is compared in the old way. A request retried across the upgrade still finds
 * its transaction, and the v1 ambiguity stays confined to requestIds used before the upgrade.
 */
const CANONICAL_PREFIX = 'json:';

export type Fingerprinter = (plainSha256Hex: string) => string;

/** Keys an existing plain SHA-256 hex into the stored form. */
export function fingerprinter(vault: Vault): Fingerprinter {
  const key = vault.derive(PURPOSE);
  return (plain) => createHmac('sha256', key).update(plain, 'utf8').digest('hex');
}

function withoutSign(params: Record<string, unknown>): Record<string, unknown> {
  const { sign: _sign, ...rest } = params;
  return rest;
}

/** A request's fingerprint: what to store for it, and whether a stored one is its own. */
export interface RequestFingerprint {
  readonly stored: string;
  matches(stored: string): boolean;
}

/** The fingerprint of a request: every top-level field but `sign`, as canonical JSON. */
export function requestFingerprint(vault: Vault, params: Record<string, unknown>): RequestFingerprint {
  const keyed = fingerprinter(vault);
  const stored = CANONICAL_PREFIX + keyed(sha256Hex(canonicalJson(withoutSign(params))));
  return {
    stored,
    matches: (other) =>
      other.startsWith(CANONICAL_PREFIX) ? other === stored : other === keyed(sha256Hex(v1Joined(params))),
  };
}

/**
 * The idempotency key of a signed request that carries no requestId (SPEC §4 "Replays"): its
 * signature (v1 `sign`, the v2 header's hex), lower-cased so a replay cannot pass as new by
 * changing the case, and keyed like a fingerprint so the table holds no working signature.
 */
export function signatureKey(vault: Vault, signature: string): string {
  return fingerprinter(vault)(`signature:${signature.toLowerCase()}`);
}
