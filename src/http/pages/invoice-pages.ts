import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Ctx } from '../../ctx.js';
import { PdfQueueFullError, renderPdfOffThread } from '../../documents/pdf-renderer.js';
import { isPaygateError, RESULT_CODES } from '../../domain/errors.js';
import { creditNoteByToken, type HostedDocument, invoiceByToken } from '../../services/documents/queries.js';
import type { PlainRouteDoc } from '../openapi.js';
import { documentPage } from './document-view.js';
import { contentSecurityPolicy, layout, newNonce } from './html.js';
import { messagePage } from './views.js';

/**
 * The hosted invoice (SPEC §17): `/invoice/{token}` as a page, `/invoice/{token}/pdf` as its PDF,
 * and a credit note the same way under `/credit-note/{token}`. Both are one document's renderings;
 * anyone holding the unguessable link may read it, as with Stripe's hosted invoices, so it is
 * never cached by a shared cache and never sent as a referrer.
 */
export const invoicePageDocs: PlainRouteDoc[] = [
  {
    method: 'GET',
    url: '/invoice/:token',
    summary: "Hosted invoice page (HTML; an invoice's url): printable, with a link to its PDF",
    contentType: 'text/html',
  },
  {
    method: 'GET',
    url: '/invoice/:token/pdf',
    summary: "The invoice as PDF (an invoice's pdfUrl): A4, the same content as the page",
    contentType: 'application/pdf',
    errors: [
      {
        status: 404,
        description: 'No invoice has this link (an HTML page says so)',
      },
      {
        status: 429,
        description: 'Too many PDFs are being rendered at once: try again after Retry-After seconds (an HTML page)',
      },
    ],
  },
  {
    method: 'GET',
    url: '/credit-note/:token',
    summary: "Hosted credit note page (HTML; a credit note's url): printable, with a link to its PDF",
    contentType: 'text/html',
  },
  {
    method: 'GET',
    url: '/credit-note/:token/pdf',
    summary: "The credit note as PDF (a credit note's pdfUrl): A4, the same content as the page",
    contentType: 'application/pdf',
    errors: [
      {
        status: 404,
        description: 'No credit note has this link (an HTML page says so)',
      },
      {
        status: 429,
        description: 'Too many PDFs are being rendered at once: try again after Retry-After seconds (an HTML page)',
      },
    ],
  },
];

const secure = (reply: FastifyReply, nonce: string): FastifyReply =>
  reply
    .header('content-security-policy', contentSecurityPolicy(nonce, []))
    .header('x-frame-options', 'DENY')
    .header('referrer-policy', 'no-referrer')
    .header('cache-control', 'private, no-store');

/** What a family of hosted documents is called, where it lives, and how a link finds one. */
interface DocumentKind {
  /** `Invoice`, `Credit note`: the title of its error pages. */
  title: string;
  path: string;
  read: (ctx: Ctx, token: string) => Promise<HostedDocument>;
}

const KINDS: readonly DocumentKind[] = [
  { title: 'Invoice', path: '/invoice', read: invoiceByToken },
  { title: 'Credit note', path: '/credit-note', read: creditNoteByToken },
];

function unavailable(
  reply: FastifyReply,
  kind: DocumentKind,
  status: number,
  title: string,
  text: string,
): FastifyReply {
  const nonce = newNonce();
  return secure(reply.code(status).header('content-type', 'text/html; charset=utf-8'), nonce).send(
    layout(nonce, kind.title, messagePage(title, text), false),
  );
}

const notThere = (reply: FastifyReply, kind: DocumentKind): FastifyReply =>
  unavailable(
    reply,
    kind,
    404,
    `This ${kind.title.toLowerCase()} is not available`,
    'Please check the link you were sent, or ask the shop for a copy.',
  );

const tokenOf = (req: FastifyRequest): string => (req.params as { token: string }).token;

async function found<T>(read: () => Promise<T>): Promise<T | undefined> {
  try {
    return await read();
  } catch (e) {
    if (isPaygateError(e) && e.code === RESULT_CODES.NOT_FOUND) return undefined;
    throw e;
  }
}

export function registerInvoicePages(app: FastifyInstance, ctx: Ctx): void {
  for (const kind of KINDS) registerDocumentPages(app, ctx, kind);
}

function registerDocumentPages(app: FastifyInstance, ctx: Ctx, kind: DocumentKind): void {
  // HEAD answers as GET without the body: mail scanners and link checkers try a receipt's links so.
  app.get(`${kind.path}/:token`, { exposeHeadRoute: true }, async (req, reply) => {
    const doc = await found(() => kind.read(ctx, tokenOf(req)));
    if (!doc) return notThere(reply, kind);
    const nonce = newNonce();
    return secure(reply.code(200).header('content-type', 'text/html; charset=utf-8'), nonce).send(
      documentPage(doc.layout, { nonce, pdfUrl: doc.pdfUrl }),
    );
  });

  app.get(`${kind.path}/:token/pdf`, { exposeHeadRoute: true }, async (req, reply) => {
    const doc = await found(() => kind.read(ctx, tokenOf(req)));
    if (!doc) return notThere(reply, kind);
    let pdf: Buffer;
    try {
      pdf = await renderPdfOffThread(doc.layout);
    } catch (e) {
      if (!(e instanceof PdfQueueFullError)) throw e;
      return unavailable(
        reply.header('retry-after', '5'),
        kind,
        429,
        'Too many documents are being prepared',
        'Please try again in a few seconds.',
      );
    }
    return secure(reply.code(200), newNonce())
      .header('content-type', 'application/pdf')
      .header('content-disposition', `inline; filename="${doc.number}.pdf"`)
      .send(pdf);
  });
}
