import type { FastifyReply } from 'fastify';
import { contentSecurityPolicy, layout, newNonce } from './html.js';

/** The redirect URLs a page's forms may end up at, and the origins of a hand-over (Stripe's 3DS). */
export interface FormTargets {
  handOverOrigins?: string[] | undefined;
  returnUrl?: string | undefined;
  failedUrl?: string | undefined;
  cancelUrl?: string | undefined;
}

/** Origins the page's forms may end up at (the transaction's redirect URLs), for CSP form-action. */
function formTargets(view: FormTargets | undefined): string[] {
  const origins: string[] = [...(view?.handOverOrigins ?? [])];
  for (const u of [view?.returnUrl, view?.failedUrl, view?.cancelUrl]) {
    if (!u) continue;
    try {
      origins.push(new URL(u).origin);
    } catch {
      // not a URL: nothing to allow
    }
  }
  return origins;
}

export function sendPage(
  reply: FastifyReply,
  status: number,
  title: string,
  body: (nonce: string) => string,
  view?: FormTargets,
  sandbox = false,
): FastifyReply {
  const nonce = newNonce();
  return reply
    .code(status)
    .header('content-type', 'text/html; charset=utf-8')
    .header('content-security-policy', contentSecurityPolicy(nonce, formTargets(view)))
    .header('x-frame-options', 'DENY')
    .header('referrer-policy', 'no-referrer')
    .send(layout(nonce, title, body(nonce), sandbox));
}
