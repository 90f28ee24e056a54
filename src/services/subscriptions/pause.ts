import type { Ctx } from '../../ctx.js';
import { notAllowed } from '../../domain/errors.js';
import { nextState } from '../../domain/subscription-state.js';
import { requireSubscription, subscriptionIdOf } from './queries.js';
import { withArticle } from '../../domain/words.js';

/**
 * POST /subscription/pause: ACTIVE → PAUSED; the PENDING record (RENEW or RETRY) is CANCELLED.
 * A charge already under way is left to complete (SPEC §6); nothing is scheduled after it.
 * `input` is the raw request object or the subscription id. 1007 unknown/foreign, 1008 otherwise.
 */
export async function pauseSubscription(ctx: Ctx, merchantId: string, input: unknown): Promise<true> {
  const id = subscriptionIdOf(input);
  await requireSubscription(ctx, merchantId, id);
  await ctx.store.transaction(async (tx) => {
    // Re-read with a lock inside the unit of work: the status may have changed since the check above.
    const s = await tx.lockSubscription(merchantId, id);
    if (!s) throw notAllowed('subscription disappeared');
    const to = nextState(s.status, 'PAUSE');
    if (to === null) throw notAllowed(`cannot pause ${withArticle(s.status)} subscription`);
    const now = ctx.clock.now();
    await tx.cancelUnclaimedRecords(s.id);
    await tx.setSubscriptionStatus(s.id, { status: to, now });
  });
  return true;
}
