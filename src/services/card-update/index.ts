import type { Ctx } from '../../ctx.js';
import { parseCardInfo, validateCard } from '../../vault/card.js';
import { requireSubscription } from '../subscriptions/queries.js';
import { replaceCard, type CardUpdateResult } from './check.js';
import { parseCardUpdate } from './request.js';

export { CARD_UPDATE_REQUEST } from './request.js';
export type { CardUpdateResult } from './check.js';
export { cardUpdateUrl, openCardLink } from './link.js';
export { cardCheckFailed, cardCheckSucceeded } from './outcome.js';
export { replaceCard } from './check.js';

/** POST /subscription/card/update and `paygate sub update-card`: 1007 unknown, 1011 a card that fails the local checks, 1008 not ACTIVE/PAUSED. */
export async function updateCard(ctx: Ctx, merchantId: string, input: unknown): Promise<CardUpdateResult> {
  const req = parseCardUpdate(input);
  const card = validateCard(parseCardInfo(req.cardInfo), ctx.clock.now(), ctx.zone);
  await requireSubscription(ctx, merchantId, req.subscriptionId);
  return replaceCard(ctx, merchantId, req.subscriptionId, card);
}
