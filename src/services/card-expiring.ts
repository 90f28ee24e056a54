import type { Ctx } from '../ctx.js';
import { wallTime } from '../domain/time.js';
import { CARD_EXPIRY_NOTICE_MS, cardExpiryNoticeDue } from '../notify/email/card-expiring.js';
import type { ExpiringCard } from '../store/store.js';
import { cardUpdateUrl } from './card-update/link.js';
import { queueCardExpiring } from './customer-email.js';

/** Renewals looked at per read. */
const PAGE = 200;

/**
 * The renewal run's card-expiring notices (SPEC §17): every renewal due within 7 days whose card
 * on file will have expired by then gets one email, with a card-update link. Once per renewal:
 * the email's dedupe key is the renewal's record, so later runs (and concurrent ones) write no
 * second one. A renewal first seen less than 7 days ahead is warned about at once. Returns how
 * many were written.
 */
export async function warnExpiringCards(ctx: Ctx, now: number): Promise<number> {
  if (ctx.config.smtpUrl === undefined) return 0;
  const until = now + CARD_EXPIRY_NOTICE_MS;
  const end = wallTime(until, ctx.zone);
  let after = { time: -1, id: '' };
  let written = 0;
  for (;;) {
    const page = await ctx.store.expiringCardCandidates({
      now,
      until,
      expiryBefore: end.year * 12 + end.month,
      afterTime: after.time,
      afterId: after.id,
      limit: PAGE,
    });
    for (const c of page)
      if (cardExpiryNoticeDue(c, c.renewalAt, now, ctx.zone) && (await warn(ctx, c, now))) written++;
    const last = page.at(-1);
    if (!last || page.length < PAGE) return written;
    after = { time: last.renewalAt, id: last.recordId };
  }
}

async function warn(ctx: Ctx, c: ExpiringCard, now: number): Promise<boolean> {
  return ctx.store.transaction(async (tx) => {
    const s = await tx.lockSubscription(c.merchantId, c.subscriptionId);
    if (s?.status !== 'ACTIVE' || !s.email) return false;
    const updateCardUrl = await cardUpdateUrl(ctx, tx, s, now);
    const id = await queueCardExpiring(
      ctx,
      tx,
      { merchantId: s.merchantId, subscriptionId: s.id, recordId: c.recordId, email: s.email },
      {
        planName: c.planName,
        subscriptionCode: c.subscriptionCode,
        amount: c.amount,
        currency: c.currency,
        payment: { brand: c.brand, last4: c.last4 },
        expMonth: c.expMonth,
        expYear: c.expYear,
        renewalAt: c.renewalAt,
        updateCardUrl,
      },
      now,
    );
    return id !== undefined;
  });
}
