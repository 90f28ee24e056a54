import type { Ctx } from '../../app.js';
import { firstBillingAfter } from '../../domain/calendar.js';
import { notAllowed } from '../../domain/errors.js';
import { nextState } from '../../domain/subscription-state.js';
import {
  getSubscription,
  insertPendingRecord,
  latestRecord,
  pendingRecords,
  setSubscriptionStatus,
  type SubscriptionRow,
} from '../../store/subscriptions.js';
import type { Sqlite } from '../../store/client.js';
import { requireSubscription, subscriptionIdOf } from './queries.js';

/**
 * POST /subscription/resume: PAUSED → ACTIVE with a RENEW record PENDING at the old
 * nextBillingTime, or now if that has passed (the billing anchor then moves to now); retries
 * start afresh (retryCount 0). `input` is the raw request object or the subscription id.
 */
export function resumeSubscription(ctx: Ctx, merchantId: string, input: unknown): true {
  const id = subscriptionIdOf(input);
  requireSubscription(ctx, merchantId, id);
  ctx.sqlite
    .transaction(() => {
      const s = getSubscription(ctx.sqlite, merchantId, id);
      if (!s) throw notAllowed('subscription disappeared');
      const to = nextState(s.status, 'RESUME');
      if (to === null) throw notAllowed(`cannot resume a ${s.status} subscription`);
      const now = ctx.clock.now();
      // A charge that was under way at the pause is still PENDING: once ACTIVE again, the run that
      // records it schedules the next RENEW as usual, so nothing more is created here.
      if (pendingRecords(ctx.sqlite, s.id).length > 0) {
        setSubscriptionStatus(ctx.sqlite, s.id, { status: to, now });
        return;
      }
      const old = oldNextBilling(ctx.sqlite, s, ctx.zone);
      const passed = old === null || old.time <= now;
      setSubscriptionStatus(ctx.sqlite, s.id, { status: to, now, ...(passed ? { anchorTime: now } : {}) });
      insertPendingRecord(ctx.sqlite, {
        subscriptionId: s.id,
        merchantId: s.merchantId,
        billingType: 'RENEW',
        amount: s.amount,
        currency: s.currency,
        scheduledTime: passed ? now : old.time,
        retryCount: 0,
        cycleIndex: passed ? 0 : old.cycleIndex,
        now,
      });
    })
    .immediate();
  return true;
}

/**
 * What nextBillingTime was when the subscription was paused: the scheduledTime of the record the
 * pause cancelled; if a charge under way at the pause finished meanwhile, the anchor date after
 * a success, or null (charge now) after a failure.
 */
function oldNextBilling(sqlite: Sqlite, s: SubscriptionRow, zone: string): { time: number; cycleIndex: number } | null {
  const last = latestRecord(sqlite, s.id);
  if (!last) return null;
  if (last.status === 'CANCELLED') return { time: last.scheduledTime, cycleIndex: last.cycleIndex };
  if (last.status === 'SUCCESS') {
    const next = firstBillingAfter(s.anchorTime, s, last.actualTime ?? last.scheduledTime, zone);
    return { time: next.time, cycleIndex: next.n };
  }
  return null;
}
