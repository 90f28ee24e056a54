import formbody from '@fastify/formbody';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Ctx } from '../../ctx.js';
import { isPaygateError, RESULT_CODES } from '../../domain/errors.js';
import { openPortal, ownSubscription, PortalExpired, returnToPortal } from '../../services/portal/index.js';
import type { PlainRouteDoc } from '../openapi.js';
import type { RateLimiter } from '../rate-limit.js';
import { csrfOf } from './csrf.js';
import { parseForm } from './form.js';
import { cardNotice, portalAction } from './portal-actions.js';
import { overview, type Form, type PortalDeps, type PortalRequest } from './portal-reply.js';
import { sendPage } from './send.js';
import { messagePage } from './views.js';

export const portalDocs: PlainRouteDoc[] = [
  {
    method: 'GET',
    url: '/portal/:token',
    summary: "Customer portal (HTML): the user's subscriptions, billing history and what they may do",
    contentType: 'text/html',
  },
  {
    method: 'GET',
    url: '/portal/return/:transactionOrderId/:sealed',
    summary:
      'Back to the customer portal from the 3-D Secure check of a card entered there (HTML): the overview, saying whether the card was saved',
    contentType: 'text/html',
  },
  {
    method: 'POST',
    url: '/portal/:token',
    summary: 'Customer portal forms: cancel (after a confirmation), pause, resume, update the card, change plan',
    contentType: 'text/html',
  },
];

/** Form posts through one link per 60 s (SPEC §18): plenty for a person, little for a script. */
export const PORTAL_ACTION_LIMIT = 20;

function portalErrorHandler(err: FastifyError | Error, req: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (err instanceof PortalExpired) {
    return sendPage(reply, 410, 'Link expired', () =>
      messagePage(
        'This link has expired',
        `Links to your subscriptions work for 60 minutes. Please ask ${err.merchantName} for a new one.`,
      ),
    );
  }
  if (isPaygateError(err) && err.code === RESULT_CODES.NOT_FOUND) {
    return sendPage(reply, 404, 'Not found', () =>
      messagePage(
        'This page does not exist',
        'The link is wrong or no longer valid. Please ask the shop for a new one.',
      ),
    );
  }
  const status = (err as FastifyError).statusCode;
  if (isPaygateError(err) || (status !== undefined && status >= 400 && status < 500)) {
    return sendPage(reply, status === 413 || status === 415 ? status : 400, 'Your subscriptions', () =>
      messagePage('Something is wrong with that request', 'Please go back and try again.'),
    );
  }
  req.log.error({ err }, 'internal error on the customer portal');
  return sendPage(reply, 500, 'Your subscriptions', () =>
    messagePage('Something went wrong', `Please try again later (reference ${req.id}).`),
  );
}

/** The customer portal (SPEC §18): HTML, no JavaScript, every form with a CSRF token, actions rate-limited per link. */
export async function registerPortal(app: FastifyInstance, ctx: Ctx, limiter: RateLimiter): Promise<void> {
  await app.register(formbody, { bodyLimit: 16 * 1024, parser: parseForm });
  app.setErrorHandler(portalErrorHandler);
  const deps: PortalDeps = { ctx, csrf: csrfOf(ctx.vault, ctx.clock), limiter };
  const open = async (req: FastifyRequest): Promise<Omit<PortalRequest, 'form'>> => {
    const token = (req.params as { token: string }).token;
    if (token.includes('\u0000')) throw Object.assign(new Error('bad token'), { statusCode: 404 });
    const portal = await openPortal(ctx, token);
    return { deps, token, portal, base: { path: `/portal/${token}`, csrf: deps.csrf.issue('portal', token) } };
  };

  // HEAD answers as GET without the body (a link checker, a mail scanner): the page exists.
  app.get('/portal/:token', { exposeHeadRoute: true }, async (req, reply) =>
    overview({ ...(await open(req)), form: {} }, reply),
  );

  // The 3-D Secure page (or Stripe's return) sends the browser here; what it says of the card is
  // read from the check's transaction, never from the query those pages add.
  app.get('/portal/return/:transactionOrderId/:sealed', async (req, reply) => {
    const { transactionOrderId, sealed } = req.params as { transactionOrderId: string; sealed: string };
    if (transactionOrderId.includes('\u0000')) throw Object.assign(new Error('bad id'), { statusCode: 404 });
    const back = await returnToPortal(ctx, transactionOrderId, sealed);
    const r: PortalRequest = {
      deps,
      token: back.token,
      portal: back.portal,
      base: { path: `/portal/${back.token}`, csrf: deps.csrf.issue('portal', back.token) },
      form: {},
    };
    return overview(r, reply, cardNotice(back.card));
  });

  app.post('/portal/:token', async (req, reply) => {
    const r: PortalRequest = {
      ...(await open(req)),
      form: req.body !== null && typeof req.body === 'object' ? (req.body as Form) : {},
    };
    const hit = await limiter.hit(`portal:${r.portal.session.tokenHash}`, PORTAL_ACTION_LIMIT, ctx.clock.now());
    if (!hit.ok) {
      void reply.header('retry-after', String(hit.retryAfter));
      return sendPage(reply, 429, 'Too many requests', () =>
        messagePage(
          'Too many requests',
          `Please wait ${hit.retryAfter} ${hit.retryAfter === 1 ? 'second' : 'seconds'} and try again.`,
        ),
      );
    }
    if (!deps.csrf.check('portal', r.token, r.form.csrf)) {
      return sendPage(reply, 403, 'Form expired', () =>
        messagePage('This form has expired', 'Please reload the page and try again.'),
      );
    }
    const s = await ownSubscription(ctx, r.portal, r.form.subscriptionId);
    try {
      return await portalAction(r, reply, s);
    } catch (e) {
      // The services' own refusals (1008 the state moved, 1009 the plan is full, …) show on the overview.
      if (!isPaygateError(e) || e.code === RESULT_CODES.NOT_FOUND || e.code === RESULT_CODES.INTERNAL) throw e;
      return overview(r, reply, { text: e.message, bad: true }, 409);
    }
  });
}
