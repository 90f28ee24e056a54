import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { encodeWithLoneSurrogates } from './text.js';

/**
 * SPEC §4 and §8 signatures. Pure functions; the HTTP layer and the callback deliverer both
 * use these, and vectors/signatures.json pins their output.
 */

/** JSON with object keys sorted ascending at every depth (JSON.stringify escaping otherwise). */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) out[key] = sortKeys((value as Record<string, unknown>)[key]);
    return out;
  }
  return value;
}

function valueText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return JSON.stringify(value);
  return canonicalJson(value);
}

/** Step 1–3 of v1: every top-level field but `sign`, skipping null/undefined/"" values, sorted, `name=value` joined by `&`. */
export function v1Joined(params: Record<string, unknown>): string {
  return v1Fields(params)
    .map((k) => `${k}=${valueText(params[k])}`)
    .join('&');
}

/**
 * v1 joins `name=value` with `&` and escapes nothing, so `requestId: "r1&transactionOrderId=txn_1"`
 * signs exactly like the two fields `requestId: "r1"`, `transactionOrderId: "txn_1"`: a captured
 * signature would fit a request the merchant never sent. A joined string parses one way only when
 * every name is a plain token and no value contains `&token=`; the first field that breaks this
 * (in signing order) is returned. Values are checked as written for signing (nested JSON included).
 */
const V1_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const V1_SPLICE = /&[A-Za-z_][A-Za-z0-9_]*=/;

export interface V1Ambiguity {
  field: string;
  reason: 'name' | 'value';
}

export function v1Ambiguity(params: Record<string, unknown>): V1Ambiguity | undefined {
  for (const k of v1Fields(params)) {
    if (!V1_NAME.test(k)) return { field: k, reason: 'name' };
    if (V1_SPLICE.test(valueText(params[k]))) return { field: k, reason: 'value' };
  }
  return undefined;
}

function v1Fields(params: Record<string, unknown>): string[] {
  return Object.keys(params)
    .filter((k) => k !== 'sign')
    .filter((k) => {
      const v = params[k];
      return v !== null && v !== undefined && v !== '';
    })
    .sort();
}

export function v1StringToSign(method: string, path: string, params: Record<string, unknown>, secret: string): string {
  return `${method.toUpperCase()} ${path}\n${v1Joined(params)}&key=${secret}`;
}

export function v1Sign(method: string, path: string, params: Record<string, unknown>, secret: string): string {
  return sha256Hex(v1StringToSign(method, path, params, secret));
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** Constant-time comparison of two hex strings (length mismatch is a plain false). */
export function safeEqualHex(a: string, b: string): boolean {
  const ab = Buffer.from(a, 'utf8');
  const bb = Buffer.from(b, 'utf8');
  if (ab.length !== bb.length) {
    // Still spend a comparison so a length probe costs the same as a content probe.
    timingSafeEqual(ab, ab);
    return false;
  }
  return timingSafeEqual(ab, bb);
}

export function verifyV1(
  method: string,
  path: string,
  params: Record<string, unknown>,
  sign: unknown,
  secrets: readonly string[],
): boolean {
  if (typeof sign !== 'string' || sign.length === 0) return false;
  const given = sign.toLowerCase();
  let ok = false;
  for (const secret of secrets) ok = safeEqualHex(v1Sign(method, path, params, secret), given) || ok;
  return ok;
}

export function hmacHex(secret: string, text: string): string {
  return createHmac('sha256', secret).update(text, 'utf8').digest('hex');
}

/** API request v2: HMAC over `t.METHOD.PATH.PAYLOAD`. */
export function v2RequestHex(secret: string, t: number, method: string, path: string, payload: string): string {
  // Over the bytes the client sent: a body with a lone surrogate as raw bytes (domain/text.ts) is
  // re-encoded to exactly those bytes, so it reaches the field check (1001) instead of failing here.
  return createHmac('sha256', secret)
    .update(encodeWithLoneSurrogates(`${t}.${method.toUpperCase()}.${path}.${payload}`))
    .digest('hex');
}

/** Callback v2: HMAC over `t.rawBody`. */
export function v2CallbackHeader(secret: string, t: number, rawBody: string): string {
  return `t=${t},v2=${hmacHex(secret, `${t}.${rawBody}`)}`;
}

export function v2RequestHeader(secret: string, t: number, method: string, path: string, payload: string): string {
  return `t=${t},v2=${v2RequestHex(secret, t, method, path, payload)}`;
}

export interface ParsedV2Header {
  t: number;
  v2: string;
}

export function parseV2Header(header: unknown): ParsedV2Header | undefined {
  if (typeof header !== 'string') return undefined;
  let t: number | undefined;
  let v2: string | undefined;
  for (const part of header.split(',')) {
    const [k, v] = part.trim().split('=', 2);
    if (k === 't' && v && /^\d{1,12}$/.test(v)) t = Number(v);
    if (k === 'v2' && v && /^[0-9a-fA-F]{64}$/.test(v)) v2 = v.toLowerCase();
  }
  return t !== undefined && v2 !== undefined ? { t, v2 } : undefined;
}

export const V2_TOLERANCE_SECONDS = 300;

/**
 * What a v2 check found, precise enough to tell the developer which step to fix and never the
 * expected value: no header, a header that is not `t=…,v2=…`, a version other than v2, a
 * timestamp outside the window (with how far off it is), or a signature that does not match.
 */
export type V2Result =
  | { ok: true }
  | { ok: false; reason: 'missing' | 'malformed' | 'mismatch' }
  | { ok: false; reason: 'unknown_version'; versions: string[] }
  | { ok: false; reason: 'stale'; skewSeconds: number };

export function verifyV2Request(
  header: unknown,
  nowMs: number,
  method: string,
  path: string,
  payload: string,
  secrets: readonly string[],
): V2Result {
  if (header === undefined || header === null || header === '') return { ok: false, reason: 'missing' };
  const parsed = parseV2Header(header);
  if (!parsed) {
    const versions =
      typeof header === 'string' ? [...header.matchAll(/(?:^|,)\s*(v\d+)=/g)].map((m) => m[1] ?? '') : [];
    if (versions.length > 0 && !versions.includes('v2')) return { ok: false, reason: 'unknown_version', versions };
    return { ok: false, reason: 'malformed' };
  }
  const skewSeconds = Math.floor(nowMs / 1000) - parsed.t;
  if (Math.abs(skewSeconds) > V2_TOLERANCE_SECONDS) return { ok: false, reason: 'stale', skewSeconds };
  let ok = false;
  for (const secret of secrets)
    ok = safeEqualHex(v2RequestHex(secret, parsed.t, method, path, payload), parsed.v2) || ok;
  return ok ? { ok: true } : { ok: false, reason: 'mismatch' };
}

/**
 * Tracking-upload response `data.sign` (SERVICE.md's rule, any signature version): values of
 * every field but `sign` sorted by name, concatenated with no separator, then the secret.
 */
export function trackingResponseSign(data: Record<string, unknown>, secret: string): string {
  const text = Object.keys(data)
    .filter((k) => k !== 'sign')
    .sort()
    .map((k) => valueText(data[k]))
    .join('');
  return sha256Hex(text + secret);
}
