import type { Ctx } from '../../ctx.js';
import {
  deliverDueEmails,
  type EmailDeliverOptions,
  type EmailDeliverSummary,
  type EmailLoop,
  startEmailLoop,
} from '../../notify/email/deliver.js';
import { documentEmail } from './email-message.js';

/**
 * Customer email delivery with its documents: the outbox pass of notify/email, given the way a
 * receipt or credit note is read back and rendered (SPEC §17). `renew` runs one pass, `serve` the loop.
 */
export function deliverCustomerEmails(
  ctx: Ctx,
  opts: Omit<EmailDeliverOptions, 'documentMessage'> = {},
  stopping?: () => boolean,
): Promise<EmailDeliverSummary> {
  return deliverDueEmails(ctx, { ...opts, documentMessage: documentEmail }, stopping);
}

export function startCustomerEmailLoop(ctx: Ctx, opts: { onError?: (e: unknown) => void } = {}): EmailLoop {
  return startEmailLoop(ctx, { ...opts, documentMessage: documentEmail });
}
