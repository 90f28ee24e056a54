import type { Channel } from './channel/channel.js';
import type { ChannelRegistry } from './channel/registry.js';
import type { AppConfig } from './config.js';
import type { Clock } from './domain/clock.js';
import type { Store } from './store/store.js';
import type { Vault, VaultKeySource } from './vault/crypto.js';

/**
 * What every service receives: the store behind its boundary, the clock, the database's time
 * zone, the vault, the channel and the configuration. Built by app.ts (the composition root);
 * services never build any of it themselves, and never see a database connection.
 */
export interface Ctx {
  store: Store;
  clock: Clock;
  /** The database's time zone: every time string and billing calendar uses it. */
  zone: string;
  vault: Vault;
  /** Where the vault key came from (a rotation writes the new key back to a key file). */
  vaultKeySource: VaultKeySource;
  /** The default channel (the sandbox): merchants not switched to another one charge here. */
  channel: Channel;
  /** Each merchant's channel (sandbox or its own Stripe account). */
  channels: ChannelRegistry;
  config: AppConfig;
  close(): Promise<void>;
}
