import { randomUUID } from 'node:crypto';
import { awaitHandlersOnClose } from './running-handlers.js';
import Fastify, {
  LogController,
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';
import type { Ctx } from '../ctx.js';
import { isPaygateError, RESULT_CODES } from '../domain/errors.js';
import { registerApiRoute, type ApiRoute } from './api.js';
import { drainRequest, worthDraining } from './drain.js';
import { BODY_LIMIT, registerJsonParser } from './body.js';
import { failure, MalformedRequest, RateLimited, statusOfError } from './envelope.js';
import { clientErrorHandler } from './client-error.js';
import { registerHealthRoutes } from './health.js';
import { type LogStream, loggerOptions, logUrl } from './logging.js';
import { createMetrics } from './metrics.js';
import { buildOpenApi, type PlainRouteDoc } from './openapi.js';
import { isPagePath, pageDocs, pageMalformed, pageNotFound, registerPages } from './pages/plugin.js';
import { portalDocs, registerPortal } from './pages/portal.js';
import { registerStripeWebhook, stripeWebhookDocs } from './stripe-webhook.js';
import { createRateLimiter, createSharedRateLimiter, type RateLimiter } from './rate-limit.js';
import { apiRoutes } from './routes/index.js';

export interface ServerOptions {
  /** SPEC §5 rate limits; off only for benchmarks (`serve --no-rate-limit`). */
  rateLimit?: boolean;
  logLevel?: string;
  /** Where log lines go (serve: stdoutLog()); pino's default stdout destination without it. */
  logStream?: LogStream;
  https?: { cert: Buffer; key: Buffer };
  /** Proxies whose X-Forwarded-For is believed (`serve --trust-proxy`): addresses or CIDR ranges. None by default. */
  trustProxy?: readonly string[];
  /** `Authorization: Bearer` token that opens /metrics to non-loopback clients (PAYGATE_METRICS_TOKEN). */
  metricsToken?: string;
}

export interface RegisteredRoute {
  method: string;
  url: string;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Every route registered, for the test that keeps /openapi.json complete. */
    paygateRoutes: RegisteredRoute[];
  }
}

export const opsDocs: PlainRouteDoc[] = [
  {
    method: 'GET',
    url: '/healthz',
    summary: 'Health: {"status":"ok","database":"ok","outboxBacklog":n}; 503 when the database cannot be read',
    contentType: 'application/json',
    errors: [{ status: 503, description: 'The database cannot be read' }],
  },
  {
    method: 'GET',
    url: '/readyz',
    summary:
      'Readiness for a load balancer: 200 {"status":"ready"}, 503 while the database cannot be read or the server is closing',
    contentType: 'application/json',
    errors: [{ status: 503, description: 'Not ready: the database cannot be read, or the server is closing' }],
  },
  {
    method: 'GET',
    url: '/metrics',
    summary:
      'Prometheus metrics; answered to loopback clients, or with Authorization: Bearer <PAYGATE_METRICS_TOKEN>; 403 otherwise',
    contentType: 'text/plain',
    errors: [{ status: 403, description: 'Neither a loopback client nor the metrics token' }],
  },
  { method: 'GET', url: '/openapi.json', summary: 'This document', contentType: 'application/json' },
];

/** A body limit as the 413 names it: `1 MiB`, `512 KiB`. */
function sizeText(bytes: number): string {
  if (bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  return bytes % 1024 === 0 ? `${bytes / 1024} KiB` : `${bytes} bytes`;
}

/** fastify's own request errors (parser, limits) as SPEC 1000s; anything else is not the client's fault. */
function asMalformed(err: FastifyError, req: FastifyRequest): MalformedRequest | undefined {
  // The route's own limit (the Stripe webhook's is 512 KiB), else the server's (BODY_LIMIT).
  if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE')
    return new MalformedRequest(
      `request body is larger than ${sizeText(req.routeOptions.bodyLimit ?? BODY_LIMIT)}`,
      413,
    );
  if (err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE')
    return new MalformedRequest('Content-Type must be application/json', 415);
  if (err.statusCode !== undefined && err.statusCode >= 400 && err.statusCode < 500) {
    return new MalformedRequest(
      'malformed request',
      err.statusCode === 413 || err.statusCode === 415 ? err.statusCode : 400,
    );
  }
  return undefined;
}

/** The API's one error handler: PaygateError → its envelope and status; unknown → 9999 with the request id, logged. */
export function apiErrorHandler(err: FastifyError | Error, req: FastifyRequest, reply: FastifyReply): FastifyReply {
  const known = isPaygateError(err) ? err : asMalformed(err as FastifyError, req);
  req.rtnCode = known ? known.code : RESULT_CODES.INTERNAL;
  if (known) {
    if (known instanceof RateLimited) void reply.header('retry-after', String(known.retryAfter));
    return reply.code(statusOfError(known)).send(failure(known.code, known.message, req.failData));
  }
  req.log.error({ err }, 'internal error');
  return reply.code(500).send(failure(RESULT_CODES.INTERNAL, `internal error (request id ${req.id})`, req.failData));
}

export async function buildServer(ctx: Ctx, opts: ServerOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    logger: loggerOptions(opts.logLevel ?? 'info', opts.logStream),
    bodyLimit: BODY_LIMIT,
    genReqId: () => randomUUID(),
    requestIdHeader: false,
    logController: new LogController({ disableRequestLogging: true }),
    exposeHeadRoutes: false,
    requestTimeout: 30_000,
    return503OnClosing: true,
    // The router refuses a URL it cannot decode, or a path segment over its length limit, before
    // any handler runs: answer those in the envelope too (SPEC §3), as 1000.
    frameworkErrors: (err, req, reply) => {
      // Before any hook: the request id header the onRequest hook gives every other answer.
      void (reply as FastifyReply).header('x-request-id', req.id);
      if (isPagePath(req.url)) return void pageMalformed(reply as FastifyReply);
      const what =
        err.code === 'FST_ERR_MAX_PARAM_LENGTH'
          ? 'a path segment of the URL is too long'
          : 'the URL is not validly encoded';
      void (reply as FastifyReply).code(400).send(failure(RESULT_CODES.MALFORMED, `malformed request: ${what}`));
    },
    clientErrorHandler,
    ...(opts.trustProxy && opts.trustProxy.length > 0 ? { trustProxy: [...opts.trustProxy] } : {}),
    ...(opts.https ? { https: opts.https } : {}),
  });
  awaitHandlersOnClose(app);
  app.decorate('paygateRoutes', [] as RegisteredRoute[]);
  app.addHook('onRoute', (r) => {
    // A HEAD route is its GET's (RFC 9110 §9.3.2), documented with it.
    for (const method of [r.method].flat()) if (method !== 'HEAD') app.paygateRoutes.push({ method, url: r.url });
  });

  const limiter = rateLimiterFor(ctx, opts.rateLimit !== false);
  // A sweep that fails (the database briefly unreachable) is retried by the next tick.
  const sweep = setInterval(() => void Promise.resolve(limiter.sweep(ctx.clock.now())).catch(() => {}), 60_000);
  sweep.unref();
  app.addHook('onClose', async () => clearInterval(sweep));

  app.addHook('onRequest', async (req, reply) => {
    void reply.header('x-request-id', req.id);
    void reply.header('x-content-type-options', 'nosniff');
    void reply.header('cache-control', 'no-store');
  });
  // An answer sent before the request's body was read (a GET declaring a huge Content-Length,
  // any refusal of an unread body) ends the connection: otherwise it stays open, waiting for
  // bytes nobody will read, until the request timeout. A body of a size worth reading is read
  // (and dropped) first, so a client still sending it gets the answer rather than a reset.
  app.addHook('onSend', async (req, reply, payload) => {
    if (req.raw.complete) return payload;
    void reply.header('connection', 'close');
    if (worthDraining(req.raw)) await drainRequest(req.raw);
    return payload;
  });
  const metrics = createMetrics(ctx);
  // One log line per request (fastify's default is two), with credentials cut out of the URL.
  app.addHook('onResponse', async (req, reply) => {
    const route = req.routeOptions.url || 'unmatched';
    metrics.observeRequest(route, req.method, reply.statusCode, reply.elapsedTime / 1000);
    if (req.rtnCode === RESULT_CODES.RATE_LIMITED) metrics.rateLimited(route);
    req.log.info(
      {
        ip: req.ip,
        method: req.method,
        route,
        url: logUrl(req),
        merchant: req.merchantId,
        status: reply.statusCode,
        rtn_code: req.rtnCode,
        ms: Math.round(reply.elapsedTime),
      },
      'request',
    );
  });

  app.removeAllContentTypeParsers();
  // Set before any plugin is registered: a plugin's scope keeps the handler its parent had when it
  // was registered, so one set afterwards left the Stripe webhook on fastify's default (its raw
  // message, a database's included). Hosted pages and the portal set their own.
  app.setErrorHandler(apiErrorHandler);
  const routes: readonly ApiRoute[] = apiRoutes;
  await app.register(async (api) => {
    registerJsonParser(api);
    api.setErrorHandler(apiErrorHandler);
    for (const route of routes) registerApiRoute(api, { ctx, limiter }, route);
    registerHealthRoutes(api, ctx, {
      metrics,
      metricsToken: opts.metricsToken,
      trustsProxy: (opts.trustProxy?.length ?? 0) > 0,
    });
    // Built on first use: `serve` learns its public URL only once it listens (--port 0).
    let doc: object | undefined;
    api.get(
      '/openapi.json',
      async () =>
        (doc ??= buildOpenApi(
          routes,
          [...opsDocs, ...pageDocs, ...portalDocs, ...stripeWebhookDocs],
          ctx.config.publicUrl,
        )),
    );
  });
  await app.register(async (pages) => registerPages(pages, ctx));
  await app.register(async (portal) => registerPortal(portal, ctx, limiter));
  await app.register(async (hooks) => registerStripeWebhook(hooks, ctx));

  // The path is never echoed: it may hold an apiKey or a page token, spelled so no route matched.
  app.setNotFoundHandler((req, reply) => {
    if (isPagePath(req.url)) return void pageNotFound(reply);
    void reply.code(404).send(failure(RESULT_CODES.NOT_FOUND, 'no such endpoint (GET /openapi.json lists them)'));
  });
  return app;
}

/**
 * One `serve` on SQLite answers every request, so its budgets live in memory; an engine shared by
 * several instances (PostgreSQL) counts them in the database so they hold whichever one answers.
 */
function rateLimiterFor(ctx: Ctx, enabled: boolean): RateLimiter {
  const { store } = ctx;
  const countRateHit = store.countRateHit?.bind(store);
  const sweepRateHits = store.sweepRateHits?.bind(store);
  if (countRateHit && sweepRateHits) return createSharedRateLimiter(enabled, { countRateHit, sweepRateHits });
  return createRateLimiter(enabled);
}
