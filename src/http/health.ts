import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Ctx } from '../ctx.js';
import type { ServerMetrics } from './metrics.js';

export interface HealthOptions {
  metrics: ServerMetrics;
  metricsToken: string | undefined;
  /** Whether `serve --trust-proxy` names any proxy. */
  trustsProxy: boolean;
}

function isLoopback(ip: string): boolean {
  return ip === '::1' || ip.startsWith('127.') || ip.startsWith('::ffff:127.');
}

const FORWARDING_HEADERS = ['x-forwarded-for', 'forwarded', 'x-real-ip'];

/**
 * /metrics is for the operator: loopback clients, or whoever presents the metrics token. A request
 * that came through a proxy nobody told us to trust (forwarding headers, but no --trust-proxy)
 * looks like loopback while its client may be anyone on the internet: it needs the token.
 */
function mayReadMetrics(req: FastifyRequest, token: string | undefined, trusted: boolean): boolean {
  const auth = req.headers.authorization;
  if (token && typeof auth === 'string' && auth.startsWith('Bearer ')) {
    // Hash both sides so the comparison is constant-time whatever the lengths.
    const given = createHash('sha256').update(auth.slice(7)).digest();
    const wanted = createHash('sha256').update(token).digest();
    if (timingSafeEqual(given, wanted)) return true;
  }
  const forwarded = FORWARDING_HEADERS.some((h) => req.headers[h] !== undefined);
  return isLoopback(req.ip) && (trusted || !forwarded);
}

export function registerHealthRoutes(app: FastifyInstance, ctx: Ctx, opts: HealthOptions): void {
  /** Liveness with the two things an operator looks at first: can the database be read, is the outbox draining. */
  app.get('/healthz', async (_req, reply) => {
    try {
      return { status: 'ok', database: 'ok', outboxBacklog: await ctx.store.outboxBacklog() };
    } catch {
      return reply.code(503).send({ status: 'error', database: 'unreachable' });
    }
  });

  /** For a load balancer: take this instance out while it cannot serve (database unreadable; closing answers 503 by itself). */
  app.get('/readyz', async (_req, reply) => {
    try {
      await ctx.store.outboxBacklog();
      return { status: 'ready' };
    } catch {
      return reply.code(503).send({ status: 'not ready', reason: 'database unreachable' });
    }
  });

  app.get('/metrics', async (req, reply) => {
    if (!mayReadMetrics(req, opts.metricsToken, opts.trustsProxy)) {
      return reply
        .code(403)
        .type('text/plain; charset=utf-8')
        .send('metrics are answered to loopback clients, or with Authorization: Bearer <PAYGATE_METRICS_TOKEN>\n');
    }
    const text = await opts.metrics.registry.metrics();
    return reply.type(opts.metrics.registry.contentType).send(text);
  });
}
