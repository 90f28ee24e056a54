import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import type { Ctx } from '../ctx.js';
import type { ResultCode } from '../domain/errors.js';
import type { MerchantRow } from '../services/rows.js';
import { authenticate, requestSignature, type Budget } from './auth.js';
import { parseJsonObject, parseQuery, readGetBody, refuseNul, splitUrl, type Params } from './body.js';
import { MalformedRequest, success } from './envelope.js';
import type { RateLimiter } from './rate-limit.js';

/**
 * The zod schema a route's service validates its request with — the OpenAPI document renders
 * the request from it — or, for a request whose shape depends on one field, its variants.
 */
export type RouteRequest =
  | { schema: z.ZodType; name?: string }
  | { variants: Record<string, { name: string; schema: z.ZodType }>; discriminator: string };

/** What the OpenAPI document says about a route (http/openapi.ts renders it). */
export interface RouteDoc {
  operationId: string;
  tag: 'Payments' | 'Plans' | 'Subscriptions' | 'Invoices' | 'Coupons' | 'Portal';
  summary: string;
  description?: string;
  request: RouteRequest;
  /** JSON schema of `data` on success. */
  data: Record<string, unknown>;
  /** Result codes of the operation itself, besides those every signed request can get (1000–1004, 9999). */
  errors: readonly ResultCode[];
}

export interface ApiRoute extends Budget {
  method: 'GET' | 'POST';
  /** fastify path, e.g. `/payment/:apiKey/refund`. */
  url: string;
  doc: RouteDoc;
  /** `data` of a refused request (pause/resume/cancel answer data:false, SPEC §5). */
  failData?: unknown;
  /** `signature`: what the request was signed with (v1 `sign`, v2 header hex), for replay idempotency. */
  handle(ctx: Ctx, merchant: MerchantRow, params: Params, req: FastifyRequest, signature: string): unknown;
}

export interface ApiDeps {
  ctx: Ctx;
  limiter: RateLimiter;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by API routes so the error handler can answer data:false where SPEC wants it. */
    failData?: unknown;
    /** The merchant the request authenticated as, for the log line. */
    merchantId?: string;
    /** The envelope's rtn_code, for the log line and metrics. */
    rtnCode?: string;
  }
}

/** Parameters and v2 payload: a POST's JSON body; a GET's query, or its JSON body when the query is empty (SPEC §3). */
async function readInput(req: FastifyRequest): Promise<{ path: string; params: Params; payload: string }> {
  const { path, rawQuery } = splitUrl(req.url);
  if (req.method === 'GET') {
    if (rawQuery !== '') return { path, params: parseQuery(rawQuery), payload: rawQuery };
    const raw = await readGetBody(req);
    return { path, params: raw === '' ? {} : parseJsonObject(raw), payload: raw };
  }
  const body: unknown = req.body;
  if (body === undefined || body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new MalformedRequest('request body must be a JSON object (Content-Type: application/json)');
  }
  return { path, params: body as Params, payload: req.rawBody };
}

export function registerApiRoute(app: FastifyInstance, deps: ApiDeps, route: ApiRoute): void {
  app.route({
    method: route.method,
    url: route.url,
    handler: async (req: FastifyRequest, reply: FastifyReply) => {
      if (route.failData !== undefined) req.failData = route.failData;
      const input = await readInput(req);
      const apiKey = route.by === 'apiKey' ? (req.params as { apiKey?: string }).apiKey : undefined;
      refuseNul(apiKey === undefined ? input.params : { apiKey, ...input.params });
      const auth = {
        method: req.method,
        path: input.path,
        params: input.params,
        payload: input.payload,
        signatureHeader: req.headers['x-paygate-signature'],
        clientIp: req.ip,
        apiKey,
      };
      const merchant = await authenticate(deps.ctx, deps.limiter, auth, route);
      req.merchantId = merchant.id;
      const data = await route.handle(deps.ctx, merchant, input.params, req, requestSignature(merchant, auth));
      req.rtnCode = '0000';
      return reply.code(200).send(success(data));
    },
  });
}
