import type { MerchantRow } from '../store/store.js';
import type { Vault } from '../vault/crypto.js';
import type { Channel } from './channel.js';
import { stripeMaxRpsFrom } from './stripe/budget.js';
import { deferredStripeChannel } from './stripe/deferred.js';
import { stripeApiUrlFrom, stripeTimeoutFrom } from './stripe/endpoint.js';

export type ChannelName = MerchantRow['channel'];

/**
 * Which channel a merchant's charges go through (SPEC §13): the sandbox unless the merchant was
 * switched to Stripe with its own key. Stripe clients are made once per merchant key and reused.
 */
export interface ChannelRegistry {
  readonly sandbox: Channel;
  forMerchant(merchant: Pick<MerchantRow, 'id' | 'channel' | 'stripeSecretKeyEnc'>, channel?: ChannelName): Channel;
}

export function createChannelRegistry(a: {
  sandbox: Channel;
  vault: Vault;
  /** Where Stripe sends a customer back; read per call, for `serve` settles it after the app is opened. */
  config: { readonly publicUrl: string };
  env?: NodeJS.ProcessEnv;
}): ChannelRegistry {
  const stripe = new Map<string, { sealed: string; channel: Channel }>();
  const apiUrl = stripeApiUrlFrom(a.env ?? process.env);
  const timeoutMs = stripeTimeoutFrom(a.env ?? process.env);
  // Checked now, not at the first Stripe call: by then a charge's transaction is committed
  // ACCEPTED, and a call that throws there leaves it so for good.
  stripeMaxRpsFrom(a.env ?? process.env);
  return {
    sandbox: a.sandbox,
    forMerchant(merchant, channel = merchant.channel) {
      if (channel === 'sandbox') return a.sandbox;
      const sealed = merchant.stripeSecretKeyEnc;
      if (!sealed) throw new Error(`merchant ${merchant.id} has no Stripe key`);
      const known = stripe.get(merchant.id);
      if (known && known.sealed === sealed) return known.channel;
      // publicUrl is read per call: `serve` settles it after the app is opened.
      const config = a.config;
      const made = deferredStripeChannel({
        secretKey: a.vault.decrypt(sealed),
        apiUrl,
        timeoutMs,
        get publicUrl() {
          return config.publicUrl;
        },
      });
      stripe.set(merchant.id, { sealed, channel: made });
      return made;
    },
  };
}
