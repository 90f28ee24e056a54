import type { Ctx } from '../ctx.js';
import type { Channel } from '../channel/channel.js';
import type { ChannelName } from '../channel/registry.js';

const named = (name: string | null | undefined): ChannelName | undefined =>
  name === 'stripe' || name === 'sandbox' ? name : undefined;

/**
 * The channel that holds a charge (or card): the one it was made on, which a later switch of the
 * merchant does not change. Without a recorded name, the merchant's current channel.
 */
export async function channelOf(ctx: Ctx, merchantId: string, name?: string | null): Promise<Channel> {
  const wanted = named(name);
  if (wanted === 'sandbox') return ctx.channel;
  const merchant = await ctx.store.getMerchant(merchantId);
  if (!merchant) throw new Error(`merchant ${merchantId} not found for its channel`);
  return ctx.channels.forMerchant(merchant, wanted);
}
