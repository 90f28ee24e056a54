import type { FastifyInstance, RouteOptions } from 'fastify';

/**
 * Makes `app.close()` wait for every route handler still running. fastify's close waits for open
 * connections, not for handlers: a request whose client hung up keeps running (a PAY between its
 * charge and the record of its outcome) with nobody holding its connection. Without this, the
 * store would be closed under it and the outcome left unrecorded until the request is repeated.
 * Call before any route is added (onRoute sees only routes added after it).
 */
export function awaitHandlersOnClose(app: FastifyInstance): void {
  const running = new Set<Promise<unknown>>();
  app.addHook('onRoute', (route: RouteOptions) => {
    const handler = route.handler;
    route.handler = function (this: FastifyInstance, req, reply) {
      const result: unknown = handler.call(this, req, reply);
      // Returned as it was: fastify treats a promise and a plain value differently.
      if (result instanceof Promise) {
        const settled = result.then(
          () => undefined,
          () => undefined,
        );
        running.add(settled);
        void settled.then(() => running.delete(settled));
      }
      return result;
    };
  });
  app.addHook('onClose', async () => {
    while (running.size > 0) await Promise.all(running);
  });
}
