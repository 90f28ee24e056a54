import type { Ctx } from '../ctx.js';
import { invalidParam, isPaygateError, PaygateError, RESULT_CODES } from '../domain/errors.js';
import {
  parseV2Header,
  V2_TOLERANCE_SECONDS,
  v1Ambiguity,
  verifyV1,
  verifyV2Request,
  type V2Result,
} from '../domain/signature.js';
import { authenticateMerchant, merchantSecrets } from '../services/merchants.js';
import type { MerchantRow } from '../services/rows.js';
import type { Vault } from '../vault/crypto.js';
import type { Params } from './body.js';
import { RateLimited } from './envelope.js';
import type { RateLimiter } from './rate-limit.js';

/** Failed authentications per client address per 60 s (SPEC §5). */
export const AUTH_FAILURE_LIMIT = 60;

export interface AuthInput {
  method: string;
  /** Request path without the query string, as sent (what the merchant signed). */
  path: string;
  params: Params;
  /** v2 PAYLOAD: raw body of a POST, raw query string of a GET (or its raw body). */
  payload: string;
  signatureHeader: unknown;
  clientIp: string;
  /** Present on payment endpoints (`/payment/{apiKey}/…`). */
  apiKey: string | undefined;
}

export interface Budget {
  /** Routes sharing a name share a budget (the transaction path and its /v1 alias). */
  bucket: string;
  limit: number;
  by: 'apiKey' | 'merchantId';
}

/**
 * Decrypting the merchant's secret is an AES-GCM open per request; a ciphertext always opens to
 * the same secret, so remember it (a rotation writes a new ciphertext, so nothing goes stale).
 */
const opened = new WeakMap<Vault, Map<string, string>>();

function cachingVault(vault: Vault): Vault {
  let cache = opened.get(vault);
  if (!cache) {
    cache = new Map();
    opened.set(vault, cache);
  }
  const map = cache;
  return {
    encrypt: (plain) => vault.encrypt(plain),
    derive: (purpose) => vault.derive(purpose),
    retired: (purpose) => vault.retired(purpose),
    decrypt(sealed) {
      let plain = map.get(sealed);
      if (plain === undefined) {
        plain = vault.decrypt(sealed);
        if (map.size >= 10_000) map.clear();
        map.set(sealed, plain);
      }
      return plain;
    },
  };
}

const badSignature = (why: string): PaygateError => new PaygateError(RESULT_CODES.BAD_SIGNATURE, `signature ${why}`);

/** Which step of the merchant's signing went wrong, in words; never the expected value. */
function v2Refusal(result: Exclude<V2Result, { ok: true }>, hasSign: boolean): PaygateError {
  switch (result.reason) {
    case 'missing':
      return badSignature(
        `missing: this merchant signs with version 2, so the X-Paygate-Signature header (t=<unix seconds>,v2=<hex>) is required${hasSign ? '; a sign field is not used' : ''}`,
      );
    case 'malformed':
      return badSignature('header malformed: X-Paygate-Signature must be t=<unix seconds>,v2=<64 hex digits>');
    case 'unknown_version':
      return badSignature(
        `version unknown: ${result.versions.join(', ')} is not supported; this merchant signs with v2`,
      );
    case 'stale':
      return badSignature(
        `timestamp outside the window: t is ${Math.abs(result.skewSeconds)} s ${result.skewSeconds > 0 ? 'behind' : 'ahead of'} the server clock (allowed ±${V2_TOLERANCE_SECONDS} s)`,
      );
    case 'mismatch':
      return badSignature(
        'mismatch: v2 is not HMAC-SHA256(secret, t.METHOD.PATH.PAYLOAD) for this request (PAYLOAD is the raw body of a POST, the raw query string of a GET)',
      );
  }
}

function checkSignature(ctx: Ctx, merchant: MerchantRow, input: AuthInput): void {
  const secrets = merchantSecrets({ ...ctx, vault: cachingVault(ctx.vault) }, merchant);
  if (merchant.signatureVersion === 1) {
    if (typeof input.params.sign !== 'string' || input.params.sign === '') {
      throw badSignature(
        `missing: this merchant signs with version 1, so the sign field is required (${input.method === 'GET' ? 'a query parameter' : 'a body field'})`,
      );
    }
    if (!verifyV1(input.method, input.path, input.params, input.params.sign, secrets)) {
      throw badSignature(
        'mismatch: sign is not SHA-256 of "METHOD PATH\\n" + the sorted name=value fields + "&key=" + secret for this request',
      );
    }
    return;
  }
  const result = verifyV2Request(
    input.signatureHeader,
    ctx.clock.now(),
    input.method,
    input.path,
    input.payload,
    secrets,
  );
  if (!result.ok) throw v2Refusal(result, typeof input.params.sign === 'string' && input.params.sign !== '');
}

/**
 * A v1 request whose joined string could be read as another request (signature.ts v1Ambiguity) is
 * refused as a parameter error (1001), so it comes after the rate limit in SPEC §3's order: the
 * signature is valid, the request is just not one v1 can sign unambiguously.
 */
function refuseAmbiguousV1(params: Params): void {
  const found = v1Ambiguity(params);
  if (!found) return;
  const name = found.field.length > 64 ? `${found.field.slice(0, 64)}…` : found.field;
  if (found.reason === 'name') {
    throw invalidParam(
      name,
      'with signature v1 a field name may only hold letters, digits and _ (it could sign like another request)',
    );
  }
  throw invalidParam(
    name,
    'with signature v1 a value may not contain "&" followed by a name and "=" (it would sign like another request); such values need signature v2',
  );
}

/**
 * SPEC §3 order after the body check: merchant (1003), signature (1002), rate limit (1004), then
 * for v1 merchants the unambiguity of the signed text (1001).
 * Failed authentications spend the client address's budget, never the merchant's.
 */
export async function authenticate(
  ctx: Ctx,
  limiter: RateLimiter,
  input: AuthInput,
  budget: Budget,
): Promise<MerchantRow> {
  const now = ctx.clock.now();
  let merchant: MerchantRow;
  try {
    merchant = await authenticateMerchant(ctx, input.params.merchantId, input.apiKey);
    checkSignature(ctx, merchant, input);
  } catch (e) {
    if (isPaygateError(e) && (e.code === RESULT_CODES.BAD_SIGNATURE || e.code === RESULT_CODES.UNKNOWN_MERCHANT)) {
      const hit = await limiter.hit(`auth-failure:${input.clientIp}`, AUTH_FAILURE_LIMIT, now);
      if (!hit.ok) throw new RateLimited(hit.retryAfter);
    }
    throw e;
  }
  const key = budget.by === 'apiKey' ? merchant.apiKey : merchant.id;
  const hit = await limiter.hit(`${budget.bucket}:${key}`, budget.limit, now);
  if (!hit.ok) throw new RateLimited(hit.retryAfter);
  if (merchant.signatureVersion === 1) refuseAmbiguousV1(input.params);
  return merchant;
}

/**
 * The signature an authenticated request carried (v1 `sign`, v2 header hex): what makes a refund
 * or tracking upload without requestId idempotent (SPEC §4 "Replays"). Only called after
 * `authenticate`, so it is present and well-formed.
 */
export function requestSignature(merchant: MerchantRow, input: Pick<AuthInput, 'params' | 'signatureHeader'>): string {
  if (merchant.signatureVersion === 1) return String(input.params.sign).toLowerCase();
  return parseV2Header(input.signatureHeader)?.v2 ?? '';
}
