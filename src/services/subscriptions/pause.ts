import type { Ctx } from '../../app.js';
import { notAllowed } from '../../domain/errors.js';
import { nextState } from '../../domain/subscription-state.js';
import { cancelUnclaimedRecords, getSubscription, setSubscriptionStatus } from '../../store/subscriptions.js';
import { requireSubscription, subscriptionIdOf } from './queries.js';

/**
 * POST /subscription/pause: ACTIVE → PAUSED; the PENDING record (RENEW or RETRY) is CANCELLED.
 * A charge already under way is left to complete (SPEC §6); nothing is scheduled after it.
 * `input` is the raw request object or the subscription id. 1007 unknown/foreign, 1008 otherwise.
 */
export function pauseSubscription(ctx: Ctx, merchantId: string, input: unknown): true {
  const id = subscriptionIdOf(input);
  requireSubscription(ctx, merchantId, id);
  ctx.sqlite
    .transaction(() => {
      // Re-read inside the write lock: the status may have changed since the check above.
      const s = getSubscription(ctx.sqlite, merchantId, id);
      if (!s) throw notAllowed('subscription disappeared');
      const to = nextState(s.status, 'PAUSE');
      if (to === null) throw notAllowed(`cannot pause a ${s.status} subscription`);
      const now = ctx.clock.now();
      cancelUnclaimedRecords(ctx.sqlite, s.id);
      setSubscriptionStatus(ctx.sqlite, s.id, { status: to, now });
    })
    .immediate();
  return true;
}
