import { z } from 'zod';
import { invalidParam, PaygateError, RESULT_CODES } from './errors.js';

/**
 * Zod building blocks for request fields (SPEC §3) and the one function that turns a zod
 * failure into a 1001 naming the field. Services validate with these; shells only parse.
 */

export const requiredString = (max: number) =>
  z.string({ error: 'is required and must be a string' }).min(1, 'is required').max(max, `must be at most ${max} characters`);

export const optionalString = (max: number) =>
  z
    .string({ error: 'must be a string' })
    .max(max, `must be at most ${max} characters`)
    .optional()
    .nullable()
    .transform((v) => (v === '' || v === null ? undefined : v));

/** An optional field where an empty string or null means "not given" (SPEC §4 signs neither). */
export const blankAbsent = <S extends z.ZodType>(schema: S) => z.preprocess((v) => (v === '' || v === null ? undefined : v), schema.optional());

/** SERVICE.md's "text": no length of its own (the 1 MiB body limit bounds it); empty means absent. */
export const optionalText = z
  .string({ error: 'must be a string' })
  .optional()
  .nullable()
  .transform((v) => (v === '' || v === null ? undefined : v));

const HTTP_URL_RE = /^https?:\/\/[^\s/?#]+[^\s]*$/i;

export function isHttpUrl(text: string): boolean {
  if (!HTTP_URL_RE.test(text)) return false;
  try {
    const u = new URL(text);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}

/** An http(s) URL of at most 500 characters; empty means absent. */
export const optionalUrl = optionalString(500).refine((v) => v === undefined || isHttpUrl(v), 'must be an http or https URL');

/**
 * A URL the user's browser is sent to (returnUrl, failedUrl, cancelUrl): kept as its WHATWG
 * serialisation — host in punycode, everything else percent-encoded — so it is plain ASCII and
 * always a valid Location header (`https://shop.example/merci/€` → `…/merci/%E2%82%AC`).
 */
export const optionalRedirectUrl = optionalUrl.transform((v) => (v === undefined ? undefined : new URL(v).href));

/** SPEC §3: a JSON integer or a string of digits; anything else is 1001. */
export const integerField = (min: number, max: number) =>
  z
    .union([z.number(), z.string()], { error: 'must be an integer' })
    .transform((v, ctx) => {
      const n = typeof v === 'number' ? v : /^\d{1,9}$/.test(v) ? Number(v) : Number.NaN;
      if (!Number.isInteger(n)) {
        ctx.addIssue({ code: 'custom', message: 'must be an integer' });
        return z.NEVER;
      }
      if (n < min || n > max) {
        ctx.addIssue({ code: 'custom', message: `must be between ${min} and ${max}` });
        return z.NEVER;
      }
      return n;
    });

/** Parse `input` with `schema`; the first problem becomes 1001 "field: reason". */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    throw new PaygateError(RESULT_CODES.MALFORMED, 'request body must be a JSON object');
  }
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = issue?.path.map(String).join('.') || 'request';
  const reason = issue?.code === 'invalid_type' && (input as Record<string, unknown>)[field] === undefined ? 'is required' : issue?.message ?? 'is invalid';
  throw invalidParam(field, reason);
}
