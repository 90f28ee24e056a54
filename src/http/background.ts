import type { FastifyBaseLogger } from 'fastify';
import type { Ctx } from '../app.js';

export interface BackgroundOptions {
  renew: boolean;
  renewCron: string;
  log: FastifyBaseLogger;
}

/** The renewal timer and the callback delivery loop that run inside `serve`. */
export function startBackground(_ctx: Ctx, _opts: BackgroundOptions): { stop(): Promise<void> } {
  return { stop: async () => {} };
}
