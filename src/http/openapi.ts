import type { z } from 'zod';
import { RESULT_CODES, type ResultCode } from '../domain/errors.js';
import { V2_TOLERANCE_SECONDS } from '../domain/signature.js';
import type { ApiRoute, RouteRequest } from './api.js';
import { httpStatusOf } from './envelope.js';
import { CALLBACK_SCHEMAS, CALLBACKS_TAG_TEXT, WEBHOOKS } from './openapi-callbacks.js';
import { COMPONENTS, FIELD_TEXT, jsonSchemaOf, RESULT_NAMES, TRACKING_ENTRY } from './openapi-schemas.js';

/**
 * The OpenAPI 3.1 document of /openapi.json. Request bodies and parameters are rendered from the
 * zod schemas the services validate with (RouteDoc.request), so the document cannot promise a
 * field the server refuses or miss one it takes; responses come from openapi-schemas.ts.
 */

type Json = Record<string, unknown>;

/** A route outside the signed API (operations, hosted pages) as the OpenAPI document lists it. */
export interface PlainRouteDoc {
  method: 'GET' | 'POST';
  url: string;
  summary: string;
  contentType: string;
  /**
   * Answers besides 200 and a malformed URL's 400 (health checks' 503, /metrics' 403); `envelope`
   * when that answer is the API's Failure envelope rather than the route's own body.
   */
  errors?: { status: number; description: string; envelope?: boolean }[];
  /** An HTML GET that may answer 303 (the Stripe 3-D Secure hand-over and return). */
  redirects?: string;
  /** A POST whose body is JSON (described so), not a page's form. */
  requestJson?: string;
}

/** fastify `:param` → OpenAPI `{param}`. */
export const openApiPath = (url: string): string => url.replace(/:([A-Za-z]+)/g, '{$1}');

const ref = (name: string): Json => ({ $ref: `#/components/schemas/${name}` });

/** Answered by every signed operation, whatever it does. */
const COMMON_ERRORS: readonly ResultCode[] = [
  RESULT_CODES.MALFORMED,
  RESULT_CODES.INVALID_PARAM,
  RESULT_CODES.BAD_SIGNATURE,
  RESULT_CODES.UNKNOWN_MERCHANT,
  RESULT_CODES.RATE_LIMITED,
  RESULT_CODES.INTERNAL,
];

const STATUS_TEXT: Record<number, string> = {
  400: 'Malformed request (1000) or invalid parameter (1001)',
  401: 'Signature (1002) or merchant (1003) refused',
  404: 'Not found for this merchant (1007)',
  409: 'Conflicts with an earlier request or the current state',
  413: 'Body larger than 1 MiB (1000)',
  415: 'Content-Type is not application/json (1000)',
  422: 'Understood but refused by the operation’s rules',
  429: 'Rate limit exceeded (1004); retry after Retry-After seconds',
  500: 'Internal error (9999); rtn_msg carries the request id, also in x-request-id',
};

const MERCHANT_ID = { type: 'string', minLength: 1, maxLength: 200, description: 'Your merchant id' };
const SIGN = {
  type: 'string',
  description:
    'v1 signature (merchants with signatureVersion 1): lowercase hex SHA-256, see docs/api.md "Signing, version 1". v2 merchants leave it out.',
};

const API_KEY_PARAM = {
  name: 'apiKey',
  in: 'path',
  required: true,
  description: 'Your merchant apiKey (it must belong to merchantId)',
  schema: { type: 'string', minLength: 1 },
};

/**
 * A GET carries v1's `sign` in its query string, which an apiKey scheme can say. A POST carries
 * it as a field of its JSON body, which no security scheme can place: there the alternative to
 * the v2 header is `{}` (no scheme), and the body schema holds `sign`.
 */
/** What a hosted page's path parameter is. */
const PATH_PARAM_TEXT: Record<string, string> = {
  token: 'The session token from data.url',
  transactionOrderId: 'The transaction that waited on 3-D Secure',
  merchantId: 'The merchant the endpoint belongs to',
  sealed: 'The portal link sealed for this return: made by the portal, never built by a client',
};

const SECURITY = [{ signatureV2: [] }, { signatureV1: [] }];
const POST_SECURITY = [{ signatureV2: [] }, {}];

/** The request object of one schema: merchantId first, the service's fields, then sign. */
function requestObject(schema: z.ZodType): Json {
  const json = jsonSchemaOf(schema);
  const fields = Object.entries(json.properties as Record<string, Json>).map(([name, s]) => [
    name,
    // A field's own description (its schema's meta) wins over the shared one of its name.
    s.description === undefined && FIELD_TEXT[name] ? { ...s, description: FIELD_TEXT[name] } : s,
  ]);
  const properties = { merchantId: MERCHANT_ID, ...Object.fromEntries(fields), sign: SIGN };
  const required = ['merchantId', ...((json.required as string[] | undefined) ?? [])];
  return { ...json, properties, required };
}

/** Component names of an operation's request: one, or one per variant of a union. */
function requestComponents(opId: string, request: RouteRequest, components: Json): Json {
  if ('variants' in request) {
    const mapping: Record<string, string> = {};
    for (const [value, v] of Object.entries(request.variants)) {
      components[v.name] ??= requestObject(v.schema);
      mapping[value] = `#/components/schemas/${v.name}`;
    }
    return {
      oneOf: Object.values(mapping).map(($ref) => ({ $ref })),
      discriminator: { propertyName: request.discriminator, mapping },
    };
  }
  const name = request.name ?? `${opId[0]?.toUpperCase()}${opId.slice(1)}Request`;
  components[name] ??= requestObject(request.schema);
  return ref(name);
}

/** A query parameter's schema: what a query string can carry (text, so no null; integers as integers). */
function querySchema(property: Json): Json {
  const variants = (property.anyOf as Json[] | undefined)?.filter((s) => s.type !== 'null');
  if (!variants) return property;
  // Digits in a query string are the integer itself; "" (not sent) stays allowed where it was.
  const integer = variants.find((s) => s.type === 'integer');
  const blank = variants.find((s) => s.const === '');
  const kept = integer ? [integer, ...(blank ? [blank] : [])] : variants;
  const chosen = kept.length === 1 ? (kept[0] as Json) : { anyOf: kept };
  return property.default !== undefined ? { ...chosen, default: property.default } : chosen;
}

function queryParameters(object: Json): Json[] {
  const required = new Set((object.required as string[] | undefined) ?? []);
  return Object.entries(object.properties as Record<string, Json>).map(([name, schema]) => ({
    name,
    in: 'query',
    required: required.has(name),
    schema: querySchema(schema),
    ...(typeof schema.description === 'string' ? { description: schema.description } : {}),
  }));
}

function successEnvelope(dataSchema: Json): Json {
  return {
    type: 'object',
    properties: {
      rtn_code: { type: 'string', const: RESULT_CODES.SUCCESS },
      rtn_msg: { type: 'string', const: 'success' },
      success: { type: 'boolean', const: true },
      data: dataSchema,
    },
    required: ['rtn_code', 'rtn_msg', 'success', 'data'],
  };
}

/** The JSON Schema type of a constant, so generators type it instead of leaving it unknown. */
function jsonTypeOf(value: unknown): Json {
  if (value === null) return { type: 'null' };
  if (Array.isArray(value)) return { type: 'array' };
  const t = typeof value;
  return t === 'boolean' || t === 'string' || t === 'object' ? { type: t } : t === 'number' ? { type: 'number' } : {};
}

function failureEnvelope(codes: ResultCode[], failData: unknown): Json {
  return {
    type: 'object',
    properties: {
      rtn_code: { type: 'string', enum: codes, description: codes.map((c) => `${c} ${RESULT_NAMES[c]}`).join(', ') },
      rtn_msg: {
        type: 'string',
        description: 'What is wrong, in words: the field and the rule for 1001, the failed check for 1002',
      },
      success: { type: 'boolean', const: false },
      ...(failData === undefined
        ? {}
        : {
            data: {
              ...jsonTypeOf(failData),
              const: failData,
              description: 'Present once the request reached the operation',
            },
          }),
    },
    required: ['rtn_code', 'rtn_msg', 'success'],
  };
}

const REQUEST_ID_HEADER = { $ref: '#/components/headers/RequestId' };

function responses(route: ApiRoute): Json {
  const byStatus = new Map<number, ResultCode[]>();
  const add = (status: number, code: ResultCode): void => {
    const list = byStatus.get(status) ?? [];
    if (!list.includes(code)) list.push(code);
    byStatus.set(status, list);
  };
  for (const code of [...COMMON_ERRORS, ...route.doc.errors]) add(httpStatusOf(code), code);
  // A body too large or of the wrong type is a 1000 with a status of its own.
  add(413, RESULT_CODES.MALFORMED);
  add(415, RESULT_CODES.MALFORMED);
  const out: Json = {
    '200': {
      description: 'Done: success is true and data holds the result',
      headers: { 'x-request-id': REQUEST_ID_HEADER },
      content: { 'application/json': { schema: successEnvelope(route.doc.data) } },
    },
  };
  for (const status of [...byStatus.keys()].sort((a, b) => a - b)) {
    const codes = (byStatus.get(status) ?? []).sort();
    out[String(status)] = {
      description: STATUS_TEXT[status] ?? codes.map((c) => `${c} ${RESULT_NAMES[c]}`).join(', '),
      headers: {
        'x-request-id': REQUEST_ID_HEADER,
        ...(status === 429 ? { 'Retry-After': { $ref: '#/components/headers/RetryAfter' } } : {}),
      },
      content: { 'application/json': { schema: failureEnvelope(codes, route.failData) } },
    };
  }
  out['503'] = CLOSING;
  return out;
}

/**
 * While `serve` shuts down, fastify answers any new request itself, before paygate's hooks: no
 * envelope, no x-request-id. Retrying (on another instance) is the right move.
 */
const CLOSING: Json = {
  description:
    'The server is shutting down: retry the request (on another instance). Answered by the HTTP framework, not in the envelope',
  content: {
    'application/json': {
      schema: {
        type: 'object',
        properties: {
          error: { type: 'string' },
          message: { type: 'string' },
          statusCode: { type: 'integer', const: 503 },
        },
        required: ['statusCode'],
      },
    },
  },
};

function apiOperation(route: ApiRoute, components: Json): Json {
  const doc = route.doc;
  const body = requestComponents(doc.operationId, doc.request, components);
  const limit = `Rate limit: ${route.limit} requests per 60 s per ${route.by}${route.bucket === 'transaction' ? ', shared by POST /payment/{apiKey}/transaction and its alias /v1/{apiKey}/transaction' : ''}.`;
  const base: Json = {
    operationId: doc.operationId,
    tags: [doc.tag],
    summary: doc.summary,
    description: [doc.description, limit].filter(Boolean).join('\n\n'),
    security: SECURITY,
    responses: responses(route),
  };
  const pathParams = route.url.includes(':apiKey') ? [API_KEY_PARAM] : [];
  if (route.method === 'GET') {
    const object = '$ref' in body ? (components[String(body.$ref).split('/').pop() ?? ''] as Json) : body;
    return {
      ...base,
      description: `${String(base.description)}\n\nParameters go in the query string (v2 signs the raw query string). A client that cannot send a query may send an empty query string and the same parameters as a JSON body instead (v2 then signs the raw body); when both are present the query string wins.`,
      parameters: [...pathParams, ...queryParameters(object)],
      requestBody: {
        required: false,
        description: 'Only with an empty query string: the parameters as a JSON object.',
        content: { 'application/json': { schema: body } },
      },
    };
  }
  return {
    ...base,
    description: `${String(base.description)}\n\nSigned with the X-Paygate-Signature header (v2), or with the sign field of the JSON body (v1).`,
    security: POST_SECURITY,
    ...(pathParams.length ? { parameters: pathParams } : {}),
    requestBody: { required: true, content: { 'application/json': { schema: body } } },
  };
}

const TAGS: Record<string, string> = {
  '/healthz': 'Operations',
  '/readyz': 'Operations',
  '/metrics': 'Operations',
  '/openapi.json': 'Operations',
  '/checkout/:token': 'Hosted pages',
  '/3ds/:token': 'Hosted pages',
  '/3ds/return/:transactionOrderId': 'Hosted pages',
  '/invoice/:token': 'Hosted pages',
  '/invoice/:token/pdf': 'Hosted pages',
  '/credit-note/:token': 'Hosted pages',
  '/credit-note/:token/pdf': 'Hosted pages',
  '/channel/stripe/:merchantId/webhook': 'Channels',
};

function plainOperationId(doc: PlainRouteDoc): string {
  const words = doc.url.split(/[^A-Za-z0-9]+/).filter((w) => w !== '' && w !== 'token' && w !== 'json');
  const name = words.map((w) => `${w[0]?.toUpperCase()}${w.slice(1)}`).join('');
  return `${doc.method === 'GET' ? 'get' : 'post'}${name}${doc.contentType === 'text/html' ? 'Page' : ''}`;
}

function bodySchema(doc: PlainRouteDoc): Json {
  if (doc.contentType.startsWith('text/')) return { type: 'string' };
  if (doc.contentType === 'application/pdf') return { type: 'string', format: 'binary' };
  if (doc.url === '/openapi.json') return { type: 'object', description: 'An OpenAPI 3.1 document' };
  return { type: 'object', properties: { status: { type: 'string' } }, required: ['status'] };
}

/**
 * A hosted page's client errors, each status on its own: a `4XX` range key breaks generators
 * that turn status keys into identifiers (orval 7 writes `status: 4XX`).
 */
const PAGE_ERRORS: Record<string, string> = {
  '400': 'A malformed link or request (an HTML page; the 1000 envelope when the URL cannot be decoded)',
  '403': 'A form without its anti-forgery token, or with an expired one',
  '404': 'Unknown, expired or finished session',
  '409':
    'This card was not taken: another card submitted on the page (another tab) is being checked or charged, or was answered first',
  '413': 'Form larger than the page accepts',
  '415': 'Not a form submission',
};

function pageErrors(method: PlainRouteDoc['method']): Json {
  const statuses = method === 'GET' ? ['400', '404'] : Object.keys(PAGE_ERRORS);
  return Object.fromEntries(
    statuses.map((status) => [
      status,
      {
        description: PAGE_ERRORS[status],
        headers: { 'x-request-id': REQUEST_ID_HEADER },
        content: { 'text/html': { schema: { type: 'string' } }, 'application/json': { schema: ref('Failure') } },
      },
    ]),
  );
}

/** Who calls an unsigned route, by its tag: none of them is part of a merchant's integration. */
const PLAIN_TEXT: Record<string, string> = {
  Operations: 'Unsigned: for operators, monitoring and load balancers, not part of the merchant API.',
  'Hosted pages':
    'An HTML page for the customer’s browser, reached through a link paygate issued (data.url of a transaction, updateCardUrl of a callback); API clients do not call it. Its forms carry an anti-forgery token.',
  Channels: 'Called by the payment processor, signed with its own scheme; not by merchants.',
};

function plainOperation(doc: PlainRouteDoc): Json {
  const html = doc.contentType === 'text/html';
  const tag = TAGS[doc.url] ?? 'Operations';
  const op: Json = {
    operationId: plainOperationId(doc),
    tags: [tag],
    summary: doc.summary,
    description: PLAIN_TEXT[tag] ?? doc.summary,
    security: [],
    responses: {
      '200': {
        description: doc.summary,
        headers: { 'x-request-id': REQUEST_ID_HEADER },
        content: { [doc.contentType]: { schema: bodySchema(doc) } },
      },
      ...(html
        ? {
            ...(doc.method === 'POST'
              ? {
                  '303': {
                    description: 'Done: on to the merchant’s return, failed or cancel URL (or back to the page)',
                    headers: { 'x-request-id': REQUEST_ID_HEADER },
                  },
                }
              : {}),
            ...(doc.method === 'GET' && doc.redirects
              ? { '303': { description: doc.redirects, headers: { 'x-request-id': REQUEST_ID_HEADER } } }
              : {}),
            ...pageErrors(doc.method),
          }
        : {
            '400': {
              description: 'Malformed URL (1000)',
              headers: { 'x-request-id': REQUEST_ID_HEADER },
              content: { 'application/json': { schema: ref('Failure') } },
            },
          }),
      '503': CLOSING,
      ...Object.fromEntries(
        (doc.errors ?? []).map((e) => [
          String(e.status),
          e.status === 503
            ? {
                description: `${e.description}; or the server is shutting down`,
                content: {
                  [doc.contentType]: {
                    // Either paygate's own answer (status) or, while closing, the framework's (statusCode).
                    schema: {
                      type: 'object',
                      properties: {
                        status: { type: 'string' },
                        database: { type: 'string' },
                        reason: { type: 'string' },
                        statusCode: { type: 'integer' },
                        error: { type: 'string' },
                        message: { type: 'string' },
                      },
                    },
                  },
                },
              }
            : {
                description: e.description,
                headers: { 'x-request-id': REQUEST_ID_HEADER },
                // A PDF that cannot be sent is explained by an HTML page.
                content: e.envelope
                  ? { 'application/json': { schema: ref('Failure') } }
                  : doc.contentType === 'application/pdf'
                    ? { 'text/html': { schema: { type: 'string' } } }
                    : { [doc.contentType]: { schema: bodySchema(doc) } },
              },
        ]),
      ),
    },
  };
  // Every `:name` of the path is a parameter (a path that names one and does not define it is invalid).
  const names = [...doc.url.matchAll(/:([A-Za-z]+)/g)].map((m) => m[1] as string);
  if (names.length > 0)
    op.parameters = names.map((name) => ({
      name,
      in: 'path',
      required: true,
      description: PATH_PARAM_TEXT[name] ?? name,
      schema: { type: 'string' },
    }));
  if (doc.method === 'POST' && doc.requestJson) {
    op.requestBody = {
      required: true,
      content: { 'application/json': { schema: { type: 'object', description: doc.requestJson } } },
    };
  } else if (doc.method === 'POST') {
    op.requestBody = {
      required: true,
      content: {
        'application/x-www-form-urlencoded': {
          schema: {
            type: 'object',
            description: 'The page’s own form, with its anti-forgery token',
            additionalProperties: { type: 'string' },
          },
        },
      },
    };
  }
  return op;
}

const DESCRIPTION = `Merchant payments (PAY, CHECKOUT), subscriptions, refunds and shipment tracking.

Every answer of the signed API is the envelope {rtn_code, rtn_msg, success, data}: success true with rtn_code "0000" and the operation's data, or success false with the result code of what went wrong and rtn_msg saying it in words. Fields without a value are left out of responses, never sent as null.

Every request is signed with the merchant's secret: version 2 in the X-Paygate-Signature header, version 1 in the sign field. The whole API is described in the repository's docs/api.md.`;

/**
 * A typed catch-all (Address: any further field, each a string) would become an index signature
 * that TypeScript generators cannot reconcile with the optional named fields (orval: TS2411 on
 * every one); the document takes any further field and says the rule in words.
 */
function untypedExtras(schema: Json): Json {
  if (typeof schema.additionalProperties !== 'object') return schema;
  return {
    ...schema,
    additionalProperties: true,
    description: `${String(schema.description)}. Fields besides these are kept too, under the same rule.`,
  };
}

export function buildOpenApi(api: readonly ApiRoute[], plain: readonly PlainRouteDoc[], serverUrl: string): object {
  const schemas: Json = {};
  for (const [name, c] of Object.entries(COMPONENTS))
    schemas[name] = untypedExtras({ ...jsonSchemaOf(c.schema, c.io), description: c.description });
  schemas.TrackingEntry = TRACKING_ENTRY;
  Object.assign(schemas, CALLBACK_SCHEMAS);
  schemas.Failure = {
    ...failureEnvelope(
      Object.values(RESULT_CODES).filter((c) => c !== RESULT_CODES.SUCCESS),
      undefined,
    ),
    description: 'A refused request',
  };
  const paths: Record<string, Json> = {};
  const put = (method: string, url: string, op: Json): void => {
    const p = openApiPath(url);
    paths[p] = { ...(paths[p] ?? {}), [method.toLowerCase()]: op };
  };
  for (const r of api) put(r.method, r.url, apiOperation(r, schemas));
  for (const d of plain) put(d.method, d.url, plainOperation(d));
  const tags = [
    ...new Set(
      Object.values(paths).flatMap((ops) => Object.values(ops).flatMap((op) => (op as { tags: string[] }).tags)),
    ),
  ];
  return {
    openapi: '3.1.0',
    info: {
      title: 'paygate',
      version: '0.1.0',
      description: DESCRIPTION,
      // paygate is self-hosted: whoever runs this installation answers for it.
      contact: { name: 'The operator of this paygate installation' },
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: serverUrl }],
    tags: [...tags, 'Callbacks'].map((name) => ({ name, description: TAG_TEXT[name] ?? name })),
    security: SECURITY,
    paths,
    webhooks: WEBHOOKS,
    components: {
      schemas,
      headers: {
        RequestId: {
          description: 'Identifies this request in paygate’s log; quote it when reporting a problem',
          schema: { type: 'string', format: 'uuid' },
        },
        RetryAfter: {
          description: 'Whole seconds until the rate-limit window has room again',
          schema: { type: 'integer', minimum: 1 },
        },
      },
      securitySchemes: {
        signatureV2: {
          type: 'apiKey',
          in: 'header',
          name: 'X-Paygate-Signature',
          description: `Merchants with signatureVersion 2: t=<unix seconds>,v2=<hex>, hex = lowercase HMAC-SHA256(secret, t + "." + METHOD + "." + PATH + "." + PAYLOAD), PAYLOAD the raw body of a POST, the raw query string (without "?") of a GET. t must be within ±${V2_TOLERANCE_SECONDS} s of the server clock. See docs/api.md "Signing, version 2".`,
        },
        signatureV1: {
          type: 'apiKey',
          in: 'query',
          name: 'sign',
          description:
            'Merchants with signatureVersion 1, on a GET: the sign query parameter. A POST carries sign as a field of its JSON body instead (its request schema lists it; its security then reads {}, since no scheme can name a body field). sign = lowercase hex SHA-256 of METHOD + " " + PATH + "\\n" + the fields but sign (null and "" skipped) sorted by name as name=value joined by "&" + "&key=" + secret. A value containing "&" followed by a name and "=" is refused with 1001. See docs/api.md "Signing, version 1".',
        },
      },
    },
  };
}

const TAG_TEXT: Record<string, string> = {
  Payments: 'Transactions (PAY, CHECKOUT, SUBSCRIPTION), refunds and shipment tracking',
  Plans: 'Subscription plans',
  Coupons: 'Discount coupons a subscription takes: percent or amount off, once, for some cycles or forever',
  Subscriptions: 'Subscribing, and a subscription’s life: detail, billing records, pause, resume, cancel',
  Portal: 'The customer portal: a link where a subscriber manages their own subscriptions',
  Invoices: 'Invoices of successful charges and the credit notes of their refunds',
  Operations: 'Health, readiness, metrics and this document',
  'Hosted pages':
    'The HTML pages paygate serves to the customer: checkout, the sandbox 3-D Secure challenge and the hand-over to Stripe’s',
  Channels: 'Endpoints the payment processors call: Stripe’s webhook',
  Callbacks: CALLBACKS_TAG_TEXT,
};
