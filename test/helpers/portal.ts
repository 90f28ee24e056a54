import type { FastifyInstance } from 'fastify';
import { buildServer } from '../../src/http/server.js';
import { updateMerchant } from '../../src/services/merchants.js';
import { createPlan } from '../../src/services/plans.js';
import { createPortalSession } from '../../src/services/portal/index.js';
import type { TestApp } from './ctx.js';
import { merchantWithPlan, subscribe } from './subscriptions.js';

/** A shop with plans, a subscriber with a portal link, and its server answering in process (on the test clock). */
export interface PortalShop {
  server: FastifyInstance;
  merchantId: string;
  planId: string;
  /** Another ACTIVE USD plan of the same merchant. */
  otherPlanId: string;
  subscriptionId: string;
  /** The subscription's first charge. */
  transactionOrderId: string;
  /** The path of the user's portal page, `/portal/<token>`. */
  path: string;
  /** A new link for the same user, made now (after the test clock moved past the first one's hour). */
  relink(): Promise<void>;
  close(): Promise<void>;
}

export async function portalShop(
  app: TestApp,
  o: { actions?: string; userId?: string; notifyUrl?: string; rateLimit?: boolean } = {},
): Promise<PortalShop> {
  const { merchantId, planId } = await merchantWithPlan(app.ctx, { price: '30.00' }, { name: 'Tea & Co' });
  if (o.actions !== undefined) await updateMerchant(app.ctx, merchantId, { portalActions: o.actions });
  const other = await createPlan(app.ctx, merchantId, {
    planName: 'Premium',
    price: '60.00',
    currency: 'USD',
    cycleType: 'MONTHLY',
    cycleLength: 1,
    trialDays: 0,
    maxSubscriptions: 0,
  });
  const userId = o.userId ?? 'user-1';
  const sub = await subscribe(app.ctx, merchantId, planId, {
    userId,
    ...(o.notifyUrl ? { notifyUrl: o.notifyUrl } : {}),
  });
  const link = await createPortalSession(app.ctx, merchantId, { userId });
  const server = await buildServer(app.ctx, { logLevel: 'silent', rateLimit: o.rateLimit ?? true });
  await server.ready();
  const shop: PortalShop = {
    server,
    merchantId,
    planId,
    otherPlanId: other.planId,
    subscriptionId: sub.subscriptionId,
    transactionOrderId: sub.transactionOrderId,
    path: new URL(link.url).pathname,
    relink: async () => {
      shop.path = new URL((await createPortalSession(app.ctx, merchantId, { userId })).url).pathname;
    },
    close: () => server.close(),
  };
  return shop;
}

export interface PageAnswer {
  status: number;
  body: string;
  headers: Record<string, unknown>;
}

export async function getPage(server: FastifyInstance, path: string): Promise<PageAnswer> {
  const res = await server.inject({ method: 'GET', url: path });
  return { status: res.statusCode, body: res.body, headers: res.headers };
}

/** The CSRF token of the first form on a page. */
export function csrfOf(html: string): string {
  const m = /name="csrf" value="([^"]+)"/.exec(html);
  if (!m?.[1]) throw new Error('no csrf field on the page');
  return m[1];
}

/** Every hidden field of the form whose submit button reads `button`. */
export function formFields(html: string, button: string): Record<string, string> {
  for (const f of html.split('<form').slice(1)) {
    const body = f.slice(0, f.indexOf('</form>'));
    if (!body.includes(`>${button}</button>`)) continue;
    const fields: Record<string, string> = {};
    for (const m of body.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
      fields[m[1] ?? ''] = (m[2] ?? '')
        .replace(/&amp;/g, '&')
        .replace(/&quot;/g, '"')
        .replace(/&#39;/g, "'");
    }
    return fields;
  }
  throw new Error(`no form with the button ${button}`);
}

export async function postForm(
  server: FastifyInstance,
  path: string,
  fields: Record<string, string>,
): Promise<PageAnswer> {
  const res = await server.inject({
    method: 'POST',
    url: path,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams(fields).toString(),
  });
  return { status: res.statusCode, body: res.body, headers: res.headers };
}

/** Text of a page without its markup, for assertions that read like what the subscriber sees. */
export const visibleText = (html: string): string =>
  html
    .replace(/<style[\s\S]*?<\/style>/g, '')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/&#39;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/\s+/g, ' ');
