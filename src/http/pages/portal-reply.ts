import type { FastifyReply } from 'fastify';
import type { Ctx } from '../../ctx.js';
import { portalView, type OpenPortal, type PortalView } from '../../services/portal/index.js';
import type { RateLimiter } from '../rate-limit.js';
import type { Csrf } from './csrf.js';
import { portalPage, type FormBase, type Notice } from './portal-views.js';
import { sendPage } from './send.js';

export type Form = Record<string, unknown>;

export interface PortalDeps {
  ctx: Ctx;
  csrf: Csrf;
  limiter: RateLimiter;
}

/** What an action handler needs to answer: the open link, its form base, the page it draws. */
export interface PortalRequest {
  deps: PortalDeps;
  token: string;
  portal: OpenPortal;
  base: FormBase;
  form: Form;
}

export function sendPortal(
  reply: FastifyReply,
  status: number,
  title: string,
  body: string,
  view: PortalView,
): FastifyReply {
  return sendPage(reply, status, title, () => body, view, view.sandbox);
}

/** The overview, with what just happened (or why it did not) above it. */
export async function overview(
  r: PortalRequest,
  reply: FastifyReply,
  notice?: Notice,
  status = 200,
): Promise<FastifyReply> {
  const view = await portalView(r.deps.ctx, r.portal);
  return sendPortal(reply, status, `Your subscriptions · ${view.merchantName}`, portalPage(r.base, view, notice), view);
}
