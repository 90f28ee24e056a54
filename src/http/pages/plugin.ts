import formbody from '@fastify/formbody';
import { parseForm } from './form.js';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Ctx } from '../../ctx.js';
import { isPaygateError, RESULT_CODES } from '../../domain/errors.js';
import {
  cancelCheckout,
  completeThreeDs,
  getPage,
  PageExpiredError,
  PageMovedError,
  returnFromThreeDs,
  submitCheckoutCard,
  threeDsHandOver,
  type PageKind,
  type PageOutcome,
  type PageView,
} from '../../services/pages.js';
import { getCardPage, submitCardPage } from '../../services/card-update/page.js';
import { splitUrl } from '../body.js';
import type { PlainRouteDoc } from '../openapi.js';
import { csrfOf, type Csrf } from './csrf.js';
import { invoicePageDocs, registerInvoicePages } from './invoice-pages.js';
import { sendPage } from './send.js';
import {
  cardCheckingPage,
  cardLinkUsedPage,
  cardUpdatedPage,
  cardUpdatePage,
  checkoutPage,
  messagePage,
  notTriedText,
  reasonText,
  resultPage,
  threeDsPage,
} from './views.js';

export const pageDocs: PlainRouteDoc[] = [
  {
    method: 'GET',
    url: '/checkout/:token',
    summary: 'Hosted checkout page (HTML)',
    contentType: 'text/html',
    redirects: 'A payment waiting on its 3-D Secure check (back from the challenge): on to its 3-D Secure page',
  },
  {
    method: 'POST',
    url: '/checkout/:token',
    summary: 'Checkout form: pay with a card or cancel',
    contentType: 'text/html',
  },
  {
    method: 'GET',
    url: '/3ds/:token',
    summary: '3-D Secure page (HTML): the sandbox challenge, or for a Stripe merchant the hand-over to Stripe',
    contentType: 'text/html',
    redirects:
      "A Stripe merchant's payment: on to Stripe's challenge page (or to the result, once Stripe has settled it)",
  },
  { method: 'POST', url: '/3ds/:token', summary: '3DS form: Complete or Fail', contentType: 'text/html' },
  {
    method: 'GET',
    url: '/3ds/return/:transactionOrderId',
    summary:
      "Return from the Stripe channel's 3-D Secure challenge: reads the payment from Stripe and finishes it (redirect or HTML)",
    contentType: 'text/html',
    redirects: 'Done: on to the merchant’s return or failed URL',
  },
  {
    method: 'GET',
    url: '/card/:token',
    summary:
      'Hosted card-update page of a subscription being retried (HTML; the updateCardUrl of RENEW_FAILED callbacks)',
    contentType: 'text/html',
  },
  {
    method: 'POST',
    url: '/card/:token',
    summary: 'Card-update form: check and save a new card',
    contentType: 'text/html',
  },
  ...invoicePageDocs,
];

/** Form posts are small; a card form never needs more. */
const PAGE_BODY_LIMIT = 16 * 1024;

type Form = Record<string, unknown>;

const field = (form: Form, name: string): string => {
  const v = form[name];
  return typeof v === 'string' ? v : '';
};

/**
 * A merchant's redirect URL as a Location header. Stored URLs are already serialised (new ones
 * since they are validated so); older rows may not be, and a raw `€` in a header would throw.
 * Not an http(s) URL at all: no redirect, the page shows the result instead.
 */
function locationOf(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    const u = new URL(url);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.href : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The merchant's redirect URL with the result attached (`transactionOrderId`, `relationId`,
 * `status`), so the shop's landing page knows which order came back and how, without a query
 * first. It is a hint for the page: the signed callback (or a signed query) stays the proof.
 */
function withResult(location: string, view: PageView): string {
  const u = new URL(location);
  u.searchParams.set('transactionOrderId', view.transactionOrderId);
  if (view.relationId) u.searchParams.set('relationId', view.relationId);
  u.searchParams.set('status', String(view.status));
  return u.href;
}

interface PageContext {
  csrf: Csrf;
  sandbox: boolean;
}

/** After a final result: 303 to the merchant's URL, or our own result page when it named none (SPEC §11). */
function finish(reply: FastifyReply, out: PageOutcome, page: PageContext, holderName?: string): FastifyReply {
  const { csrf } = page;
  // The server's sandbox, for a charge made on it (a Stripe merchant's pages move real money).
  const sandbox = page.sandbox && out.view.sandbox;
  // Our own 3DS page: a relative path built from the page token (URL-safe base64).
  if (out.result === 'three_ds' && out.redirectUrl) return reply.code(303).header('location', out.redirectUrl).send();
  if (out.result === 'processing') {
    return sendPage(reply, 200, 'Payment', () =>
      messagePage(
        'Your payment is being processed',
        'The card issuer has not confirmed it yet. The shop is told as soon as it is settled; you may close this page.',
      ),
    );
  }
  // 409, as the card-update page's second card: this card was not taken, another one on the page decides.
  if (out.result === 'not_tried') {
    const text = notTriedText(out.otherCard);
    if (out.otherCard === 'in_progress' || out.otherCard === 'declined')
      return sendPage(
        reply,
        409,
        'Checkout',
        () => checkoutPage(out.view, csrf.issue('checkout', out.view.token), text, holderName),
        out.view,
        sandbox,
      );
    return sendPage(reply, 409, 'Payment', () => messagePage('This card was not tried', text), undefined, sandbox);
  }
  if (out.result === 'declined_retry') {
    return sendPage(
      reply,
      200,
      'Checkout',
      () => checkoutPage(out.view, csrf.issue('checkout', out.view.token), reasonText(out.failReason), holderName),
      out.view,
      sandbox,
    );
  }
  const to = locationOf(out.redirectUrl);
  if (to) return reply.code(303).header('location', withResult(to, out.view)).send();
  const kind = out.result === 'succeeded' ? 'succeeded' : out.result === 'cancelled' ? 'cancelled' : 'failed';
  return sendPage(
    reply,
    200,
    'Payment',
    () => resultPage(kind, out.view, out.failReason ?? out.view.failReason),
    undefined,
    sandbox,
  );
}

const unavailable = (): string =>
  messagePage(
    'This payment page is no longer available',
    'The link has expired, was already used, or does not exist. Please return to the shop and start again.',
  );

/** Whether a request-target is under the hosted pages' paths (any spelling the router may see). */
export function isPagePath(url: string): boolean {
  // /invoice/list, /invoice/detail and /portal/session are API endpoints (JSON); every other
  // /invoice/… is the hosted invoice, every other /portal/… the customer portal.
  return /^\/+(checkout|3ds|card|credit-note|invoice(?!\/+(list|detail)\/*$)|portal(?!\/+session\/*$))(\/|$)/.test(
    splitUrl(url).path,
  );
}

/** A page path no route serves (no token, extra segments, another method): the unavailable page. */
export function pageNotFound(reply: FastifyReply): FastifyReply {
  return sendPage(reply, 404, 'Payment page', unavailable);
}

/** A page URL the router could not decode. */
export function pageMalformed(reply: FastifyReply): FastifyReply {
  return sendPage(reply, 400, 'Payment page', () =>
    messagePage('Something is wrong with that link', 'Please return to the shop and start again.'),
  );
}

/** Every failure on a hosted page answers an HTML page (or a redirect), never JSON. */
function pageErrorHandler(err: FastifyError | Error, req: FastifyRequest, reply: FastifyReply): FastifyReply {
  // Whatever was being answered when this failed, its redirect target must not survive into the error page.
  reply.removeHeader('location');
  // An expired session ends like a failed payment: on to failedUrl, or our result page.
  if (err instanceof PageExpiredError) {
    const out = err.outcome;
    const to = locationOf(out.redirectUrl);
    if (to) return reply.code(303).header('location', withResult(to, out.view)).send();
    return sendPage(reply, 200, 'Payment', () => resultPage('failed', out.view, out.failReason ?? 'session_expired'));
  }
  // A checkout waiting on its 3-D Secure check (the back button from the challenge): on to its 3DS page.
  if (err instanceof PageMovedError && err.outcome.redirectUrl)
    return reply.code(303).header('location', err.outcome.redirectUrl).send();
  if (isPaygateError(err) && err.code === RESULT_CODES.NOT_FOUND) return pageNotFound(reply);
  const status = (err as FastifyError).statusCode;
  if (isPaygateError(err) || (status !== undefined && status >= 400 && status < 500)) {
    return sendPage(reply, status === 413 || status === 415 ? status : 400, 'Payment page', () =>
      messagePage('Something is wrong with that request', 'Please go back and try again.'),
    );
  }
  req.log.error({ err }, 'internal error on a hosted page');
  return sendPage(reply, 500, 'Payment page', () =>
    messagePage('Something went wrong', `Please try again later (reference ${req.id}).`),
  );
}

/** The hosted checkout and 3DS pages (SPEC §11): HTML, no JavaScript, no external resources. */
export async function registerPages(app: FastifyInstance, ctx: Ctx): Promise<void> {
  await app.register(formbody, { bodyLimit: PAGE_BODY_LIMIT, parser: parseForm });
  app.setErrorHandler(pageErrorHandler);
  const csrf = csrfOf(ctx.vault, ctx.clock);
  const page: PageContext = { csrf, sandbox: ctx.channel.name === 'sandbox' };
  registerInvoicePages(app, ctx);

  const forbidden = (reply: FastifyReply) =>
    sendPage(reply, 403, 'Payment page', () =>
      messagePage('This form has expired', 'Please reload the payment page and try again.'),
    );

  // A path parameter holding U+0000 names no page; PostgreSQL cannot even compare it with stored
  // text (it would fail the lookup), so it is answered as the unknown page it is, on both engines.
  app.addHook('preHandler', async (req, reply) => {
    const params = (req.params ?? {}) as Record<string, unknown>;
    if (Object.values(params).some((v) => typeof v === 'string' && v.includes('\u0000'))) return pageNotFound(reply);
  });

  const tokenOf = (req: FastifyRequest): string => (req.params as { token: string }).token;
  const formOf = (req: FastifyRequest): Form =>
    req.body !== null && typeof req.body === 'object' ? (req.body as Form) : {};

  // Registered before /3ds/:token's siblings: a static segment wins over the parameter anyway.
  app.get('/3ds/return/:transactionOrderId', async (req, reply) =>
    finish(
      reply,
      await returnFromThreeDs(ctx, (req.params as { transactionOrderId: string }).transactionOrderId),
      page,
    ),
  );

  for (const kind of ['checkout', '3ds'] as const satisfies readonly PageKind[]) {
    app.get(`/${kind}/:token`, async (req, reply) => {
      if (kind === '3ds') {
        // A channel that runs 3DS itself: hand the shopper over to its challenge page.
        const handOver = await threeDsHandOver(ctx, tokenOf(req));
        if (handOver && 'redirectUrl' in handOver)
          return reply.code(303).header('location', handOver.redirectUrl).send();
        if (handOver) return finish(reply, handOver.outcome, page);
      }
      const view = await getPage(ctx, kind, tokenOf(req));
      const token = csrf.issue(kind, view.token);
      return sendPage(
        reply,
        200,
        kind === 'checkout' ? 'Checkout' : '3-D Secure',
        () => (kind === 'checkout' ? checkoutPage(view, token) : threeDsPage(view, token)),
        view,
        page.sandbox && view.sandbox,
      );
    });
  }

  app.post('/checkout/:token', async (req, reply) => {
    const token = tokenOf(req);
    const form = formOf(req);
    if (!csrf.check('checkout', token, form.csrf)) return forbidden(reply);
    if (field(form, 'action') === 'cancel') return finish(reply, await cancelCheckout(ctx, token), page);
    const holderName = field(form, 'holderName').trim();
    const out = await submitCheckoutCard(ctx, token, {
      holderName,
      cardNumber: field(form, 'cardNumber').replace(/[\s-]/g, ''),
      month: field(form, 'month').trim(),
      year: field(form, 'year').trim(),
      cvv: field(form, 'cvv').trim(),
    });
    return finish(reply, out, page, holderName);
  });

  app.get('/card/:token', async (req, reply) => {
    const view = await getCardPage(ctx, tokenOf(req));
    return sendPage(
      reply,
      200,
      'Update your card',
      () => cardUpdatePage(view, csrf.issue('card', view.token)),
      view,
      page.sandbox && view.sandbox,
    );
  });

  app.post('/card/:token', async (req, reply) => {
    const token = tokenOf(req);
    const form = formOf(req);
    if (!csrf.check('card', token, form.csrf)) return forbidden(reply);
    const holderName = field(form, 'holderName').trim();
    const out = await submitCardPage(ctx, token, {
      holderName,
      cardNumber: field(form, 'cardNumber').replace(/[\s-]/g, ''),
      month: field(form, 'month').trim(),
      year: field(form, 'year').trim(),
      cvv: field(form, 'cvv').trim(),
    });
    if (out.result === 'three_ds' && out.redirectUrl) return reply.code(303).header('location', out.redirectUrl).send();
    const sandbox = page.sandbox && out.view.sandbox;
    if (out.result === 'updated')
      return sendPage(reply, 200, 'Card updated', () => cardUpdatedPage(out.view), undefined, sandbox);
    if (out.result === 'processing')
      return sendPage(reply, 200, 'Card being checked', () => cardCheckingPage(out.view), undefined, sandbox);
    // 409: this card was not taken; the one submitted just before it on the same link decides.
    if (out.result === 'used')
      return sendPage(reply, 409, 'Card update', () => cardLinkUsedPage(out.view), undefined, sandbox);
    return sendPage(
      reply,
      200,
      'Update your card',
      () => cardUpdatePage(out.view, csrf.issue('card', token), reasonText(out.failReason), holderName),
      out.view,
      sandbox,
    );
  });

  app.post('/3ds/:token', async (req, reply) => {
    const token = tokenOf(req);
    const form = formOf(req);
    if (!csrf.check('3ds', token, form.csrf)) return forbidden(reply);
    const action = field(form, 'action');
    // Only the page's own two buttons send an action: anything else was not sent from it.
    if (action !== 'complete' && action !== 'fail')
      return sendPage(reply, 400, 'Payment page', () =>
        messagePage('Something is wrong with that request', 'Please use the Complete or Fail button on the page.'),
      );
    return finish(reply, await completeThreeDs(ctx, token, action === 'complete'), page);
  });
}
