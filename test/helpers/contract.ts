import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { openApiDocument } from '../../src/http/openapi-document.js';

/**
 * Checks HTTP traffic against the OpenAPI document, in-process: ajv (JSON Schema 2020-12, the
 * dialect of OpenAPI 3.1) for the schemas, and a small matcher for what OpenAPI adds around
 * them (path templates, query parameters, status codes, headers).
 *
 * Responses are always checked: the document must describe every answer the server gives.
 * Requests are checked when the server accepted them (2xx): the document must not forbid what
 * the server takes. A refused request is meant to break the rules, so it is not held to them.
 */

type Json = Record<string, any>;

export interface Exchange {
  method: string;
  url: string;
  requestBody?: string | undefined;
  status: number;
  responseHeaders: Record<string, string | undefined>;
  responseBody: string;
}

export interface Violation {
  exchange: string;
  problem: string;
}

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

/** The document as served, minus the server URL (which only `serve` knows). */
export function currentDocument(): Json {
  return openApiDocument('http://127.0.0.1') as Json;
}

interface Operation {
  method: string;
  template: string;
  match: RegExp;
  op: Json;
  pointer: string;
}

const takesInteger = (schema: Json | undefined): boolean =>
  schema?.type === 'integer' || ((schema?.anyOf ?? []) as Json[]).some(takesInteger);

const escapePointer = (s: string): string => s.replace(/~/g, '~0').replace(/\//g, '~1');

export class ContractValidator {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true });
  private readonly ops: Operation[] = [];
  private readonly compiled = new Map<string, ValidateFunction>();
  private static readonly ID = 'https://paygate.invalid/openapi.json';

  constructor(readonly doc: Json) {
    addFormats(this.ajv);
    this.ajv.addSchema(doc, ContractValidator.ID);
    for (const [template, item] of Object.entries(doc.paths as Record<string, Json>)) {
      const match = new RegExp(`^${template.replace(/[.]/g, '\\.').replace(/\{[^}]+\}/g, '[^/]+')}$`);
      for (const [method, op] of Object.entries(item)) {
        this.ops.push({
          method: method.toUpperCase(),
          template,
          match,
          op,
          pointer: `#/paths/${escapePointer(template)}/${method}`,
        });
      }
    }
  }

  private validator(pointer: string): ValidateFunction {
    let v = this.compiled.get(pointer);
    if (!v) {
      v = this.ajv.compile({ $ref: `${ContractValidator.ID}${pointer}` });
      this.compiled.set(pointer, v);
    }
    return v;
  }

  private errors(pointer: string, value: unknown): string | undefined {
    const v = this.validator(pointer);
    if (v(value)) return undefined;
    return this.ajv.errorsText(v.errors, { separator: '; ' });
  }

  check(x: Exchange): string[] {
    const url = new URL(x.url);
    const operation = this.ops.find((o) => o.method === x.method && o.match.test(url.pathname));
    if (!operation) {
      // The catch-all 404 and 405s of unknown routes are not operations; a success would be one.
      return x.status < 300 ? [`${x.method} ${url.pathname} answered ${x.status} but is not in the document`] : [];
    }
    return [...this.checkResponse(operation, x), ...(x.status < 300 ? this.checkRequest(operation, url, x) : [])];
  }

  private checkResponse(o: Operation, x: Exchange): string[] {
    const responses = o.op.responses as Json;
    const key =
      String(x.status) in responses
        ? String(x.status)
        : `${String(x.status)[0]}XX` in responses
          ? `${String(x.status)[0]}XX`
          : 'default';
    const declared = responses[key] as Json | undefined;
    if (!declared) return [`status ${x.status} is not a documented response of ${o.op.operationId}`];
    const out: string[] = [];
    for (const [name, header] of Object.entries((declared.headers ?? {}) as Json)) {
      if (x.responseHeaders[name.toLowerCase()] === undefined) out.push(`response header ${name} missing`);
      const schema = (header as Json).$ref
        ? this.doc.components.headers[
            String((header as Json).$ref)
              .split('/')
              .pop() as string
          ].schema
        : (header as Json).schema;
      const text = x.responseHeaders[name.toLowerCase()];
      if (text !== undefined && schema?.type === 'integer' && !/^\d+$/.test(text))
        out.push(`response header ${name} is not an integer: ${text}`);
    }
    const content = declared.content as Json | undefined;
    if (!content) return out;
    const type = (x.responseHeaders['content-type'] ?? '').split(';')[0]?.trim() ?? '';
    if (!(type in content))
      return [...out, `response content type ${type || '(none)'} is not documented for ${x.status}`];
    if (type !== 'application/json') return out;
    let body: unknown;
    try {
      body = JSON.parse(x.responseBody);
    } catch {
      return [...out, 'response body is not JSON'];
    }
    const problem = this.errors(`${o.pointer}/responses/${escapePointer(key)}/content/application~1json/schema`, body);
    return problem ? [...out, `response ${x.status}: ${problem}`] : out;
  }

  private checkRequest(o: Operation, url: URL, x: Exchange): string[] {
    const out: string[] = [];
    const hasQuery = url.search.length > 1;
    if (o.method === 'GET' && hasQuery) {
      const params = ((o.op.parameters ?? []) as Json[]).filter((p) => p.in === 'query');
      const given = new Map(url.searchParams);
      params.forEach((p, i) => {
        const value = given.get(p.name);
        given.delete(p.name);
        if (value === undefined) {
          if (p.required) out.push(`query parameter ${p.name} is required`);
          return;
        }
        const index = (o.op.parameters as Json[]).indexOf(p);
        // A query string is text: digits are the integer a parameter of integer type declares.
        const typed = takesInteger(p.schema) && /^-?\d+$/.test(value) ? Number(value) : value;
        const problem = this.errors(`${o.pointer}/parameters/${index}/schema`, typed);
        if (problem) out.push(`query parameter ${p.name}: ${problem} (${i})`);
      });
      // Fields the document does not name are ignored by the server (but signed), as in a JSON body.
      return out;
    }
    const body = o.op.requestBody as Json | undefined;
    if (x.requestBody === undefined || x.requestBody === '') {
      if (body?.required) out.push('request body is required');
      return out;
    }
    if (!body) return [...out, 'a request body is not documented'];
    const types = Object.keys(body.content as Json);
    // The hosted pages take their forms; everything else takes JSON.
    const type = types.includes('application/json') ? 'application/json' : (types[0] ?? '');
    let parsed: unknown;
    try {
      parsed =
        type === 'application/x-www-form-urlencoded'
          ? Object.fromEntries(new URLSearchParams(x.requestBody))
          : JSON.parse(x.requestBody);
    } catch {
      return [...out, 'request body is not JSON'];
    }
    const problem = this.errors(`${o.pointer}/requestBody/content/${escapePointer(type)}/schema`, parsed);
    return problem ? [...out, `request: ${problem}`] : out;
  }

  /** Every violation of a list of exchanges, each named by its request. */
  violations(exchanges: readonly Exchange[]): Violation[] {
    return exchanges.flatMap((x) =>
      this.check(x).map((problem) => ({ exchange: `${x.method} ${new URL(x.url).pathname} → ${x.status}`, problem })),
    );
  }
}
