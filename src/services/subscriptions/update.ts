import { z } from 'zod';
import type { Ctx } from '../../ctx.js';
import { isEmailAddress } from '../../domain/email-address.js';
import { notFound } from '../../domain/errors.js';
import { parseInput, requiredString } from '../../domain/fields.js';
import { subscriptionDetail } from './queries.js';
import type { SubscriptionDetail } from './views.js';

/**
 * POST /subscription/update (SPEC §17): the address the subscription's customer emails go to.
 * Any state: an ended subscription's address still matters to the merchant's records, and
 * changing it sends nothing. Emails already written keep the address they were written with.
 */
export const SUBSCRIPTION_UPDATE_REQUEST = z.object({
  subscriptionId: requiredString(200),
  email: requiredString(254)
    .transform((v) => v.trim())
    .refine(isEmailAddress, 'must be an email address such as ada@example.com')
    .meta({ description: 'Where the subscription’s customer emails go from now on' }),
});

export async function updateSubscription(ctx: Ctx, merchantId: string, input: unknown): Promise<SubscriptionDetail> {
  const q = parseInput(SUBSCRIPTION_UPDATE_REQUEST, input);
  await ctx.store.transaction(async (tx) => {
    const s = await tx.lockSubscription(merchantId, q.subscriptionId);
    if (!s) throw notFound('subscription');
    await tx.setSubscriptionEmail(s.id, q.email, ctx.clock.now());
  });
  return subscriptionDetail(ctx, merchantId, { subscriptionId: q.subscriptionId });
}
