import type { FastifyInstance } from 'fastify';
import type { Ctx } from '../../app.js';
import type { PlainRouteDoc } from '../openapi.js';

export const pageDocs: PlainRouteDoc[] = [];

export async function registerPages(_app: FastifyInstance, _ctx: Ctx): Promise<void> {}
