import type { Ctx } from '../ctx.js';
import type { CardExpiringEmail, RenewalFailedEmail, SubscriptionEndedEmail } from '../notify/email/message.js';
import type { NewCustomerEmail, SubscriptionRow, Tx } from '../store/store.js';

/**
 * Writing customer emails (SPEC §17), INSIDE the unit of work of what they report, so an email
 * exists exactly when its event committed. What each stores is the message's facts without the
 * sender and recipient (read at delivery, so a corrected emailFrom or merchant name applies to
 * emails still waiting).
 */

type Facts<E> = Omit<E, 'kind' | 'to' | 'sender'>;

/**
 * Write the email unless there is nothing to send it with or to: no PAYGATE_SMTP_URL, or no
 * address. The merchant's emailFrom and its customer-emails switch are checked by the write.
 */
async function queue(ctx: Ctx, tx: Tx, e: Omit<NewCustomerEmail, 'recipient'> & { recipient: string | null }) {
  if (ctx.config.smtpUrl === undefined || !e.recipient) return undefined;
  return tx.enqueueEmail({ ...e, recipient: e.recipient });
}

/** Whether a subscription's event would be emailed at all: spares the reads that build it. */
export function emailsSubscriber(ctx: Ctx, s: SubscriptionRow): boolean {
  return ctx.config.smtpUrl !== undefined && s.email !== null;
}

export function queueRenewalFailed(
  ctx: Ctx,
  tx: Tx,
  s: SubscriptionRow,
  recordId: string,
  facts: Facts<RenewalFailedEmail>,
  now: number,
): Promise<string | undefined> {
  return queue(ctx, tx, {
    merchantId: s.merchantId,
    kind: 'renewal-failed',
    recipient: s.email,
    subscriptionId: s.id,
    recordId,
    dedupeKey: `renewal-failed:${recordId}`,
    details: facts,
    now,
  });
}

/** One notice per renewal: the dedupe key is the renewal's record. */
export function queueCardExpiring(
  ctx: Ctx,
  tx: Tx,
  a: { merchantId: string; subscriptionId: string; recordId: string; email: string },
  facts: Facts<CardExpiringEmail>,
  now: number,
): Promise<string | undefined> {
  return queue(ctx, tx, {
    merchantId: a.merchantId,
    kind: 'card-expiring',
    recipient: a.email,
    subscriptionId: a.subscriptionId,
    recordId: a.recordId,
    dedupeKey: `card-expiring:${a.recordId}`,
    details: facts,
    now,
  });
}

/** A subscription ends once: the dedupe key is the subscription. */
export async function queueSubscriptionEnded(
  ctx: Ctx,
  tx: Tx,
  s: SubscriptionRow,
  facts: Omit<Facts<SubscriptionEndedEmail>, 'planName' | 'subscriptionCode'>,
  now: number,
): Promise<string | undefined> {
  if (!emailsSubscriber(ctx, s)) return undefined;
  const plan = await tx.getPlanInfo(s.planId);
  return queue(ctx, tx, {
    merchantId: s.merchantId,
    kind: 'subscription-ended',
    recipient: s.email,
    subscriptionId: s.id,
    dedupeKey: `subscription-ended:${s.id}`,
    details: { ...facts, planName: plan?.name ?? s.planId, subscriptionCode: s.code },
    now,
  });
}
