import type { ApiRoute } from './api.js';

/** A route outside the signed API (operations, hosted pages) as the OpenAPI document lists it. */
export interface PlainRouteDoc {
  method: 'GET' | 'POST';
  url: string;
  summary: string;
  contentType: string;
}

const envelope = (data: object): object => ({
  type: 'object',
  properties: {
    rtn_code: { type: 'string', pattern: '^\\d{4}$' },
    rtn_msg: { type: 'string' },
    success: { type: 'boolean' },
    data,
  },
  required: ['rtn_code', 'rtn_msg', 'success'],
});

const RESULTS = 'rtn_code: 0000 success; 1000 malformed (400/413/415); 1001 invalid parameter (400); 1002 signature (401); 1003 merchant (401); 1004 rate limit (429, Retry-After); 1005–1008 (409/404); 1009–1011 (422); 9999 internal (500).';

/** fastify `:param` → OpenAPI `{param}`. */
export const openApiPath = (url: string): string => url.replace(/:([A-Za-z]+)/g, '{$1}');

function pathParams(url: string): object[] {
  return [...url.matchAll(/:([A-Za-z]+)/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string' } }));
}

function apiOperation(route: ApiRoute): object {
  const fields: Record<string, object> = { merchantId: { type: 'string', maxLength: 200 }, ...route.doc.fields, sign: { type: 'string', description: 'v1 signature (SPEC §4)' } };
  const required = ['merchantId', ...route.doc.required];
  const signature = { name: 'X-Paygate-Signature', in: 'header', required: false, schema: { type: 'string' }, description: 'v2: t=<unix seconds>,v2=<hex HMAC-SHA256> (SPEC §4)' };
  const base = {
    summary: route.doc.summary,
    description: `Rate limit: ${route.limit} per 60 s per ${route.by}. ${RESULTS}`,
    responses: { default: { description: 'envelope', content: { 'application/json': { schema: envelope(route.doc.data) } } } },
  };
  if (route.method === 'GET') {
    const query = Object.entries(fields).map(([name, schema]) => ({ name, in: 'query', required: required.includes(name), schema }));
    return { ...base, parameters: [...pathParams(route.url), ...query, signature] };
  }
  return {
    ...base,
    parameters: [...pathParams(route.url), signature],
    requestBody: { required: true, content: { 'application/json': { schema: { type: 'object', properties: fields, required } } } },
  };
}

function plainOperation(doc: PlainRouteDoc): object {
  const op: Record<string, unknown> = {
    summary: doc.summary,
    parameters: pathParams(doc.url),
    responses: { default: { description: doc.summary, content: { [doc.contentType]: {} } } },
  };
  if (doc.method === 'POST') op.requestBody = { content: { 'application/x-www-form-urlencoded': { schema: { type: 'object' } } } };
  return op;
}

export function buildOpenApi(api: readonly ApiRoute[], plain: readonly PlainRouteDoc[], serverUrl: string): object {
  const paths: Record<string, Record<string, object>> = {};
  const put = (method: string, url: string, op: object): void => {
    const p = openApiPath(url);
    paths[p] = { ...(paths[p] ?? {}), [method.toLowerCase()]: op };
  };
  for (const r of api) put(r.method, r.url, apiOperation(r));
  for (const d of plain) put(d.method, d.url, plainOperation(d));
  return {
    openapi: '3.1.0',
    info: { title: 'paygate', version: '0.1.0', description: 'Merchant payments and subscriptions. Envelope, signatures and result codes: SPEC §3–§5.' },
    servers: [{ url: serverUrl }],
    paths,
  };
}
