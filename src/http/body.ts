import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { decodeWithLoneSurrogates } from '../domain/text.js';
import { MalformedRequest } from './envelope.js';
import { decodeFormPart } from './percent.js';

/** SPEC §3: bodies at most 1 MiB. */
export const BODY_LIMIT = 1024 * 1024;

declare module 'fastify' {
  interface FastifyRequest {
    /** The body exactly as received: v2 signatures are computed over these bytes. */
    rawBody: string;
  }
}

export type Params = Record<string, unknown>;

/** No request of SPEC §5 nests deeper than a few levels; deeper input only costs stack later (signing, validation). */
export const MAX_JSON_DEPTH = 32;

/** Bracket depth outside strings, in one pass over the text. */
function tooDeep(raw: string): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if (inString) {
      if (c === 92)
        i++; // backslash: skip the escaped character
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) {
      if (++depth > MAX_JSON_DEPTH) return true;
    } else if (c === 125 || c === 93) depth--;
  }
  return false;
}

/**
 * The first key that appears twice in one object, at any depth, in text JSON.parse accepted.
 * JSON.parse keeps the last one silently, so `"payAmount":"1.00","payAmount":"99.00"` would be
 * read one way here and possibly another way by whatever the client or a proxy logged or signed.
 */
function duplicateKey(raw: string): string | undefined {
  // One entry per open bracket: the keys seen so far in an object, null for an array.
  const open: (Set<string> | null)[] = [];
  let expectKey = false;
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if (c === 34) {
      const start = i;
      let escaped = false;
      for (i++; i < raw.length; i++) {
        const d = raw.charCodeAt(i);
        if (d === 92) {
          escaped = true;
          i++;
        } else if (d === 34) break;
      }
      if (!expectKey) continue;
      expectKey = false;
      const keys = open[open.length - 1];
      // "a" and "\u0061" are the same key: compare decoded names.
      const key = escaped ? (JSON.parse(raw.slice(start, i + 1)) as string) : raw.slice(start + 1, i);
      if (keys?.has(key)) return key;
      keys?.add(key);
    } else if (c === 123) {
      open.push(new Set());
      expectKey = true;
    } else if (c === 91) {
      open.push(null);
    } else if (c === 125 || c === 93) {
      open.pop();
      expectKey = false;
    } else if (c === 44) {
      expectKey = open.length > 0 && open[open.length - 1] !== null;
    }
  }
  return undefined;
}

/** A JSON object or a 1000 saying what is wrong with it. */
export function parseJsonObject(raw: string): Params {
  if (raw.trim() === '') throw new MalformedRequest('request body is empty; send a JSON object');
  if (tooDeep(raw)) throw new MalformedRequest(`request body nests deeper than ${MAX_JSON_DEPTH} levels`);
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw new MalformedRequest('request body is not valid JSON');
  }
  const twice = duplicateKey(raw);
  if (twice !== undefined)
    throw new MalformedRequest(
      `request body has the key ${JSON.stringify(twice.slice(0, 64))} more than once in one object`,
    );
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new MalformedRequest('request body must be a JSON object');
  }
  // A "__proto__" key would be an own property here, but later spreads could turn it into a prototype.
  if (Object.hasOwn(value, '__proto__')) throw new MalformedRequest('request body must not contain a __proto__ field');
  return value as Params;
}

/**
 * The first field (by its top-level name) with a U+0000 anywhere in it, in a name or a value at
 * any depth. PostgreSQL cannot store that character in text, so one engine would keep it and the
 * other fail: paygate refuses it on both, as a malformed request, before anything is looked up.
 */
export function nulField(params: Params): string | undefined {
  const has = (v: unknown): boolean => {
    if (typeof v === 'string') return v.includes('\u0000');
    if (Array.isArray(v)) return v.some(has);
    if (v !== null && typeof v === 'object') return Object.entries(v).some(([k, x]) => k.includes('\u0000') || has(x));
    return false;
  };
  return Object.entries(params).find(([k, v]) => k.includes('\u0000') || has(v))?.[0];
}

/** A 1000 when any parameter carries U+0000 (see nulField). */
export function refuseNul(params: Params): void {
  const field = nulField(params);
  if (field !== undefined)
    throw new MalformedRequest(
      `parameter ${JSON.stringify(field.slice(0, 64))} contains the NUL character (U+0000), which no parameter may contain`,
    );
}

/**
 * JSON is UTF-8 (RFC 8259). A lenient decoder would turn every invalid byte into U+FFFD, so two
 * different byte strings would read as the same request while v2 signs the bytes: refuse them.
 * A BOM is kept (and then fails JSON.parse) so the text is always exactly the bytes sent.
 */
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

export function decodeBody(bytes: Uint8Array): string {
  try {
    return utf8.decode(bytes);
  } catch {
    // A lone surrogate written as bytes is kept, for the field check to name (SPEC §3: 1001).
    const text = decodeWithLoneSurrogates(bytes);
    if (text === undefined) throw new MalformedRequest('request body is not valid UTF-8');
    return text;
  }
}

/** The only body parser of the API scope: JSON kept raw beside the parsed object. */
export function registerJsonParser(app: FastifyInstance): void {
  app.decorateRequest('rawBody', '');
  app.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: BODY_LIMIT }, (req, body, done) => {
    try {
      const raw = decodeBody(typeof body === 'string' ? Buffer.from(body, 'utf8') : body);
      req.rawBody = raw;
      done(null, parseJsonObject(raw));
    } catch (e) {
      done(e as Error, undefined);
    }
  });
}

/** `http://host:port` (and any `user:password@`) in front of an absolute-form request-target. */
const SCHEME_AUTHORITY = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i;

/**
 * Path and raw query of a request-target. HTTP/1.1 servers must accept the absolute-form
 * (`GET http://host/path`), and fastify routes it like the origin-form, so its path is what is
 * signed and logged too.
 */
export function splitUrl(url: string): { path: string; rawQuery: string } {
  const target = url.startsWith('/') ? url : url.replace(SCHEME_AUTHORITY, '');
  const i = target.indexOf('?');
  return i < 0 ? { path: target, rawQuery: '' } : { path: target.slice(0, i), rawQuery: target.slice(i + 1) };
}

/**
 * Query parameters as strings; a parameter given twice is ambiguous to sign, so it is refused.
 * Escapes are decoded strictly (http/percent.ts): bytes that are not UTF-8 are 1000, as in a body.
 */
export function parseQuery(rawQuery: string): Params {
  const out: Params = {};
  for (const pair of rawQuery.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const k = decodeFormPart(eq < 0 ? pair : pair.slice(0, eq));
    const v = decodeFormPart(eq < 0 ? '' : pair.slice(eq + 1));
    if (k === undefined || v === undefined) throw new MalformedRequest('query string is not valid UTF-8');
    if (Object.hasOwn(out, k)) throw new MalformedRequest(`query parameter ${k} is given more than once`);
    if (k === '__proto__') throw new MalformedRequest('query must not contain __proto__');
    out[k] = v;
  }
  return out;
}

/**
 * fastify does not read GET bodies; clients of the original gateway send GET parameters as a
 * JSON body when the query string is empty (SPEC §3), so read it here with the same limit.
 */
export async function readGetBody(req: FastifyRequest): Promise<string> {
  const type = req.headers['content-type'];
  if (type !== undefined && !/^application\/json\s*(;|$)/i.test(type)) {
    throw new MalformedRequest('Content-Type must be application/json', 415);
  }
  const declared = Number(req.headers['content-length'] ?? '0');
  if (declared > BODY_LIMIT) throw new MalformedRequest('request body is larger than 1 MiB', 413);
  if (declared === 0 && req.headers['transfer-encoding'] === undefined) return '';
  const body = await readUpTo(req.raw, BODY_LIMIT);
  if (body === undefined) throw new MalformedRequest('request body is larger than 1 MiB', 413);
  return decodeBody(body);
}

/**
 * The body, or undefined once it passes `limit` — leaving the stream open and paused (a for-await
 * loop left by a throw would destroy the socket before the 413 could be sent).
 */
function readUpTo(stream: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const settle = (result: Buffer | undefined, err?: Error) => {
      stream.off('data', onData);
      stream.off('end', onEnd);
      stream.off('error', onError);
      if (err) reject(err);
      else resolve(result);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) return void chunks.push(chunk);
      stream.pause();
      settle(undefined);
    };
    const onEnd = () => settle(Buffer.concat(chunks));
    const onError = (err: Error) => settle(undefined, err);
    stream.on('data', onData);
    stream.once('end', onEnd);
    stream.once('error', onError);
  });
}
