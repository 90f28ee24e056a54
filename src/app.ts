import type { AppConfig } from './config.js';
import type { Ctx } from './ctx.js';
import { systemClock, type Clock } from './domain/clock.js';
import { loadVaultKey, vaultFromKey } from './vault/crypto.js';
import type { Channel, ChannelDeps } from './channel/channel.js';
import { createSandboxChannel } from './channel/sandbox.js';
import { openStore } from './store/open.js';

export type { Ctx } from './ctx.js';

export interface OpenAppOptions {
  clock?: Clock;
  /** Another channel implementation; the sandbox channel by default. */
  channel?: (deps: ChannelDeps) => Channel;
}

/** The composition root: config → store, clock, vault, channel. */
export async function openApp(config: AppConfig, opts: OpenAppOptions = {}): Promise<Ctx> {
  const store = await openStore(config.dbPath);
  try {
    const zone = await store.settleZone(config.zone);
    const clock = opts.clock ?? systemClock;
    const vault = vaultFromKey(loadVaultKey(config.dbPath, config.vaultKey));
    const channel = (opts.channel ?? createSandboxChannel)({ store, clock });
    return { store, clock, zone, vault, channel, config, close: () => store.close() };
  } catch (e) {
    await store.close();
    throw e;
  }
}
