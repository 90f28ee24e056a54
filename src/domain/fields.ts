import { z } from 'zod';
import { invalidParam, PaygateError, RESULT_CODES } from './errors.js';
import { AMOUNT_RE } from './money.js';
import { canonicalJson } from './signature.js';
import { badTextPath, escapeLoneSurrogates, hasLoneSurrogate, hasNul } from './text.js';

/**
 * Zod building blocks for request fields (SPEC §3) and the one function that turns a zod
 * failure into a 1001 naming the field. Services validate with these; shells only parse.
 */

export const requiredString = (max: number) =>
  z
    .string({
      error: (issue) => (issue.input === undefined || issue.input === null ? 'is required' : 'must be a string'),
    })
    .min(1, 'is required')
    .max(max, `must be at most ${max} characters`);

export const optionalString = (max: number) =>
  z
    .string({ error: 'must be a string' })
    .max(max, `must be at most ${max} characters`)
    .optional()
    .nullable()
    .transform((v) => (v === '' || v === null ? undefined : v));

/** An optional field where an empty string or null means "not given" (SPEC §4 signs neither). */
export const blankAbsent = <S extends z.ZodType>(schema: S) => {
  const blank = z.preprocess((v) => (v === '' || v === null ? undefined : v), schema.optional());
  blankables.add(blank);
  return blank;
};

/** Schemas that take "" and null as "not sent", whatever their own type (the OpenAPI document says so). */
export const blankables = new WeakSet<z.ZodType>();

/** SERVICE.md's "text": no length of its own (the 1 MiB body limit bounds it); empty means absent. */
export const optionalText = z
  .string({ error: 'must be a string' })
  .optional()
  .nullable()
  .transform((v) => (v === '' || v === null ? undefined : v));

/**
 * How a field looks on the wire when its zod schema cannot say it by itself (a union with a
 * transform, a rule in a refinement). The OpenAPI document (http/openapi.ts) renders a field
 * from its validator and this note, so the document and the validation cannot drift apart.
 */
export const wireForms = new WeakMap<z.ZodType, Record<string, unknown>>();

export function wireForm<S extends z.ZodType>(schema: S, json: Record<string, unknown>): S {
  wireForms.set(schema, json);
  return schema;
}

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
export const optionalUrl = wireForm(
  optionalString(500).refine((v) => v === undefined || isHttpUrl(v), 'must be an http or https URL'),
  // A pattern, not format "uri": the server takes non-ASCII URLs (and serialises redirect URLs itself).
  { type: 'string', pattern: '^[Hh][Tt][Tt][Pp][Ss]?://[^\\s/?#]+[^\\s]*$', maxLength: 500 },
);

/**
 * A URL the user's browser is sent to (returnUrl, failedUrl, cancelUrl): kept as its WHATWG
 * serialisation — host in punycode, everything else percent-encoded — so it is plain ASCII and
 * always a valid Location header (`https://shop.example/merci/€` → `…/merci/%E2%82%AC`).
 */
export const optionalRedirectUrl = optionalUrl.transform((v) => (v === undefined ? undefined : new URL(v).href));

/** SPEC §3: a JSON integer or a string of digits; anything else is 1001. */
export const integerField = (min: number, max: number) =>
  wireForm(
    z
      .union([z.number(), z.string()], { error: 'must be a whole number (a JSON integer or a string of digits)' })
      .transform((v, ctx) => {
        // Digits beyond nine are still a whole number, only out of range (Number keeps their size).
        const n = typeof v === 'number' ? v : /^\d+$/.test(v) ? Number(v) : Number.NaN;
        if (!Number.isInteger(n)) {
          ctx.addIssue({ code: 'custom', message: 'must be a whole number (a JSON integer or a string of digits)' });
          return z.NEVER;
        }
        if (n < min || n > max) {
          ctx.addIssue({ code: 'custom', message: `must be between ${min} and ${max}` });
          return z.NEVER;
        }
        return n;
      }),
    {
      anyOf: [
        { type: 'integer', minimum: min, maximum: max },
        { type: 'string', pattern: '^\\d{1,9}$' },
      ],
    },
  );

/** `items[0].name`: the field as a developer writes it. */
function fieldPath(prefix: string, path: readonly PropertyKey[]): string {
  let out = prefix;
  for (const key of path) out += typeof key === 'number' ? `[${key}]` : out === '' ? String(key) : `.${String(key)}`;
  return out;
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let v = input;
  for (const key of path)
    v = v !== null && typeof v === 'object' ? (v as Record<PropertyKey, unknown>)[key] : undefined;
  return v;
}

/**
 * SPEC §3's text rules at any depth (domain/text.ts): U+0000 is 1000, as the HTTP layer answers it
 * in a top-level parameter; text that is not valid Unicode is 1001 naming its field.
 */
function refuseBadText(value: unknown, prefix: string): void {
  const nul = badTextPath(value, hasNul);
  if (nul)
    throw new PaygateError(
      RESULT_CODES.MALFORMED,
      `parameter ${JSON.stringify(escapeLoneSurrogates(fieldPath(prefix, nul)).replaceAll('\u0000', '').slice(0, 64))} contains the NUL character (U+0000), which no parameter may contain`,
    );
  const path = badTextPath(value, hasLoneSurrogate);
  if (!path) return;
  throw invalidParam(
    escapeLoneSurrogates(fieldPath(prefix, path)) || prefix || 'request',
    'is not valid Unicode text: it holds a lone surrogate (a \\ud800–\\udfff escape without its pair)',
  );
}

/** Parse `input` with `schema`; the first problem becomes 1001 "field: reason" (`prefix` names a nested document). */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown, prefix = ''): z.output<S> {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    throw new PaygateError(RESULT_CODES.MALFORMED, 'request body must be a JSON object');
  }
  refuseBadText(input, prefix);
  const result = schema.safeParse(input);
  if (result.success) {
    // A field sent as JSON text (a trackingList string) is parsed by its schema: check what it held.
    refuseBadText(result.data, prefix);
    return result.data;
  }
  const issue = result.error.issues[0];
  const path = issue?.path ?? [];
  const field = fieldPath(prefix, path) || 'request';
  const reason =
    issue?.code === 'invalid_type' && valueAt(input, path) === undefined
      ? 'is required'
      : (issue?.message ?? 'is invalid');
  throw invalidParam(field, reason);
}

/** A request amount: a decimal string of SPEC §3's (12,2) shape; money.ts parses it per currency. */
export const amountString = (error: string) =>
  wireForm(z.string({ error }), { type: 'string', pattern: AMOUNT_RE.source, examples: ['10.00'] });

/** An optional amount (empty means absent), parsed later against its currency. */
export const optionalAmount = wireForm(optionalString(32), {
  type: 'string',
  pattern: AMOUNT_RE.source,
  examples: ['10.00'],
});

/**
 * A field carrying a JSON document (cardInfo, items, addresses): either the document as a JSON
 * string (what the original gateway took) or the JSON value itself. A value is kept as compact
 * JSON with sorted keys, the text a v1 signature covers for it, so both forms validate alike.
 */
export function jsonDocument(what: string, shape: Record<string, unknown>, required: true): z.ZodType<string, unknown>;
export function jsonDocument(
  what: string,
  shape: Record<string, unknown>,
  required?: false,
): z.ZodType<string | undefined, unknown>;
export function jsonDocument(what: string, shape: Record<string, unknown>, required = false): z.ZodType {
  const doc = z.union([z.string(), z.record(z.string(), z.unknown()), z.array(z.unknown())], {
    error: (issue) =>
      issue.input === undefined || issue.input === null ? 'is required' : `must be a JSON string or a JSON ${what}`,
  });
  const asText = (v: unknown): string | undefined =>
    v === '' || v === null || v === undefined ? undefined : typeof v === 'string' ? v : canonicalJson(v);
  const schema = required
    ? doc.refine((v) => v !== '', 'is required').transform((v) => asText(v) as string)
    : doc.optional().nullable().transform(asText);
  return wireForm(schema, {
    anyOf: [{ type: 'string', contentMediaType: 'application/json', contentSchema: shape }, shape],
  });
}
