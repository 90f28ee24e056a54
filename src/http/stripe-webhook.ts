import type { FastifyInstance } from 'fastify';
import type { Ctx } from '../ctx.js';
import { receiveStripeWebhook } from '../services/stripe-webhook.js';
import type { PlainRouteDoc } from './openapi.js';

export const stripeWebhookDocs: PlainRouteDoc[] = [
  {
    method: 'POST',
    url: '/channel/stripe/:merchantId/webhook',
    summary: "Stripe's events for a merchant on the Stripe channel, signed with its webhook secret (Stripe-Signature)",
    contentType: 'application/json',
    requestJson: 'A Stripe event, exactly as Stripe sent it (verified over the raw bytes)',
    errors: [
      {
        status: 400,
        description:
          'The signature does not verify (or is missing or too old), or no webhook secret is set: nothing changed',
      },
      { status: 404, description: 'Unknown merchant (an id holding U+0000 included)' },
      { status: 413, description: 'Body larger than 512 KiB (1000): nothing changed', envelope: true },
      {
        status: 500,
        description: 'A fault on paygate’s side (9999 with the request id, never the fault’s own message)',
        envelope: true,
      },
    ],
  },
];

/** Stripe events are far smaller; a larger body is not Stripe's. */
const WEBHOOK_BODY_LIMIT = 512 * 1024;

/**
 * The Stripe webhook (SPEC §13). Its own encapsulated parser keeps the body as raw bytes: the
 * signature covers them exactly, and a re-serialised JSON object would not verify.
 */
export async function registerStripeWebhook(app: FastifyInstance, ctx: Ctx): Promise<void> {
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
  // The limit on the route (not the parser), so the 413 of the server's error handler can name it.
  app.post('/channel/stripe/:merchantId/webhook', { bodyLimit: WEBHOOK_BODY_LIMIT }, async (req, reply) => {
    const payload = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    const signature = req.headers['stripe-signature'];
    const answer = await receiveStripeWebhook(
      ctx,
      (req.params as { merchantId: string }).merchantId,
      payload,
      typeof signature === 'string' ? signature : undefined,
    );
    return reply.code(answer.status).send(answer.body);
  });
}
