import { createHmac } from 'node:crypto';
import { canonicalJson, sha256Hex, v1Joined } from '../domain/signature.js';
import type { Vault } from './crypto.js';
import { FINGERPRINT_PURPOSE } from './key-check.js';

/**
 * Idempotency fingerprints of requests (SPEC §5, §10). A request may carry card data, so a plain
 * hash of it is a brute-force target (PAN and CVV fall out of one row in seconds given the BIN,
 * last four and amount beside it): every fingerprint is an HMAC under a key derived from the
 * vault key, which the database does not hold.
 *
 * The HMAC is taken over a plain SHA-256 hex rather than over the text itself, so that rows
 * written before fingerprints were keyed can be rekeyed in place (store/…/fingerprints.ts)
 * without the requests, and still match the same request afterwards.
 *
 * After `paygate vault rotate` new fingerprints are keyed under the new vault key's derived key, so
 * a leaked old key cannot brute-force the card of a request made after the rotation. Rows written
 * before keep the key they were written under (a fingerprint cannot be rekeyed without its
 * request): a repeat is compared under the current key, then under each retired one
 * (Vault.retired), so it still answers its first result, or 1006 for another body.
 */
const PURPOSE = FINGERPRINT_PURPOSE;

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

const keyedUnder =
  (key: Buffer): Fingerprinter =>
  (plain) =>
    createHmac('sha256', key).update(plain, 'utf8').digest('hex');

/** Keys an existing plain SHA-256 hex into the stored form (under the current vault key). */
export function fingerprinter(vault: Vault): Fingerprinter {
  return keyedUnder(vault.derive(PURPOSE));
}

/** The current fingerprint key, then those of earlier vault keys, newest first. */
const everyKey = (vault: Vault): Fingerprinter[] => [
  fingerprinter(vault),
  ...vault.retired(PURPOSE).map((r) => keyedUnder(r.key)),
];

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
  const canonical = sha256Hex(canonicalJson(withoutSign(params)));
  const stored = CANONICAL_PREFIX + fingerprinter(vault)(canonical);
  return {
    stored,
    // Asked only of a requestId seen before: one HMAC per vault key the database has had, at most.
    matches: (other) =>
      other.startsWith(CANONICAL_PREFIX)
        ? other === stored ||
          vault.retired(PURPOSE).some((r) => other === CANONICAL_PREFIX + keyedUnder(r.key)(canonical))
        : everyKey(vault).some((keyed) => other === keyed(sha256Hex(v1Joined(params)))),
  };
}

/**
 * The idempotency key of a signed request that carries no requestId (SPEC §4 "Replays"): its
 * signature (v1 `sign`, the v2 header's hex), lower-cased so a replay cannot pass as new by
 * changing the case, and keyed like a fingerprint so the table holds no working signature.
 *
 * It is looked up by equality, and a v1 signature can be replayed at any time, so it stays under
 * one key for good: the fingerprint key of the database's first vault key (the oldest retired
 * one), not the current one. That is safe to leave to an old key: only refunds and tracking
 * uploads are keyed so, requests that carry no card data, and what it hides is a signature —
 * 256 bits under the merchant's secret over fields the database holds in clear anyway.
 */
export function signatureKey(vault: Vault, signature: string): string {
  const first = vault.retired(PURPOSE).at(-1);
  return (first ? keyedUnder(first.key) : fingerprinter(vault))(`signature:${signature.toLowerCase()}`);
}
