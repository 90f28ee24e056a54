import type { FastifyInstance, FastifyRequest } from 'fastify';
import { MalformedRequest } from './envelope.js';

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
      if (c === 92) i++; // backslash: skip the escaped character
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) {
      if (++depth > MAX_JSON_DEPTH) return true;
    } else if (c === 125 || c === 93) depth--;
  }
  return false;
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
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new MalformedRequest('request body must be a JSON object');
  }
  // A "__proto__" key would be an own property here, but later spreads could turn it into a prototype.
  if (Object.hasOwn(value, '__proto__')) throw new MalformedRequest('request body must not contain a __proto__ field');
  return value as Params;
}

/** The only body parser of the API scope: JSON kept raw beside the parsed object. */
export function registerJsonParser(app: FastifyInstance): void {
  app.decorateRequest('rawBody', '');
  app.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: BODY_LIMIT }, (req, body, done) => {
    const raw = typeof body === 'string' ? body : body.toString('utf8');
    req.rawBody = raw;
    try {
      done(null, parseJsonObject(raw));
    } catch (e) {
      done(e as Error, undefined);
    }
  });
}

export function splitUrl(url: string): { path: string; rawQuery: string } {
  const i = url.indexOf('?');
  return i < 0 ? { path: url, rawQuery: '' } : { path: url.slice(0, i), rawQuery: url.slice(i + 1) };
}

/** Query parameters as strings; a parameter given twice is ambiguous to sign, so it is refused. */
export function parseQuery(rawQuery: string): Params {
  const out: Params = {};
  let search: URLSearchParams;
  try {
    search = new URLSearchParams(rawQuery);
  } catch {
    throw new MalformedRequest('query string is malformed');
  }
  for (const [k, v] of search) {
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
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req.raw) {
    const buf = chunk as Buffer;
    size += buf.length;
    if (size > BODY_LIMIT) throw new MalformedRequest('request body is larger than 1 MiB', 413);
    chunks.push(buf);
  }
  return Buffer.concat(chunks).toString('utf8');
}
