import type { Ctx } from '../../ctx.js';
import { firstBillingAfter } from '../../domain/calendar.js';
import { notAllowed } from '../../domain/errors.js';
import { nextState } from '../../domain/subscription-state.js';
import type { SubscriptionRow, Tx } from '../../store/store.js';
import { renewalPrice } from '../plan-change/price.js';
import { requireSubscription, subscriptionIdOf } from './queries.js';
import { withArticle } from '../../domain/words.js';

/**
 * POST /subscription/resume: PAUSED → ACTIVE with a RENEW record PENDING at the old
 * nextBillingTime, or now if that has passed (the billing anchor then moves to now); retries
 * start afresh (retryCount 0). `input` is the raw request object or the subscription id.
 */
export async function resumeSubscription(ctx: Ctx, merchantId: string, input: unknown): Promise<true> {
  const id = subscriptionIdOf(input);
  await requireSubscription(ctx, merchantId, id);
  await ctx.store.transaction(async (tx) => {
    const s = await tx.lockSubscription(merchantId, id);
    if (!s) throw notAllowed('subscription disappeared');
    const to = nextState(s.status, 'RESUME');
    if (to === null) throw notAllowed(`cannot resume ${withArticle(s.status)} subscription`);
    const now = ctx.clock.now();
    // A charge that was under way at the pause is still PENDING: once ACTIVE again, the run that
    // records it schedules the next RENEW as usual, so nothing more is created here.
    if ((await tx.pendingRecords(s.id)).length > 0) {
      await tx.setSubscriptionStatus(s.id, { status: to, now });
      return;
    }
    const old = await oldNextBilling(tx, s, ctx.zone);
    const passed = old === null || old.time <= now;
    await tx.setSubscriptionStatus(s.id, { status: to, now, ...(passed ? { anchorTime: now } : {}) });
    await tx.insertPendingRecord({
      subscriptionId: s.id,
      merchantId: s.merchantId,
      billingType: 'RENEW',
      ...(await renewalPrice(tx, s)),
      currency: s.currency,
      scheduledTime: passed ? now : old.time,
      retryCount: 0,
      cycleIndex: passed ? 0 : old.cycleIndex,
      now,
    });
  });
  return true;
}

/**
 * What nextBillingTime was when the subscription was paused: the scheduledTime of the record the
 * pause cancelled; if a charge under way at the pause finished meanwhile, the anchor date after
 * a success, or null (charge now) after a failure.
 */
async function oldNextBilling(
  tx: Tx,
  s: SubscriptionRow,
  zone: string,
): Promise<{ time: number; cycleIndex: number } | null> {
  const last = await tx.latestCalendarRecord(s.id);
  if (!last) return null;
  if (last.status === 'CANCELLED') return { time: last.scheduledTime, cycleIndex: last.cycleIndex };
  if (last.status === 'SUCCESS') {
    const next = firstBillingAfter(s.anchorTime, s, last.actualTime ?? last.scheduledTime, zone);
    return { time: next.time, cycleIndex: next.n };
  }
  return null;
}
