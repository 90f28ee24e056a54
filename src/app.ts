import type { AppConfig } from './config.js';
import type { Ctx } from './ctx.js';
import { systemClock, type Clock } from './domain/clock.js';
import { checkVaultKeyBeforeOpen, type Vault } from './vault/crypto.js';
import { openVault } from './services/vault-open.js';
import type { Channel, ChannelDeps } from './channel/channel.js';
import { createSandboxChannel } from './channel/sandbox.js';
import { createChannelRegistry } from './channel/registry.js';
import { CALL_WINDOW_MS, type CallWindow, memoryCallWindow } from './channel/stripe/budget.js';
import { useCallWindow } from './channel/stripe/pacer.js';
import { isPostgresUrl, openStore } from './store/open.js';
import { StoreOpenError, type Store } from './store/store.js';
import { fingerprinter } from './vault/fingerprint.js';

import { PUBLIC_URL_META_KEY } from './services/public-url.js';
export type { Ctx } from './ctx.js';
export { migrationStatus, type MigrationStatus } from './store/open.js';

export interface OpenAppOptions {
  clock?: Clock;
  /** Another channel implementation; the sandbox channel by default. */
  channel?: (deps: ChannelDeps) => Channel;
  /** Only `paygate vault rotate`: open a database whose key rotation has not finished. */
  vaultRotation?: 'allow';
}

/** The composition root: config → store, clock, vault, channel. */
export async function openApp(config: AppConfig, opts: OpenAppOptions = {}): Promise<Ctx> {
  // A PostgreSQL database has no "next to" for a key file, and every instance on every machine
  // must seal and open with one key: it comes from the environment or nothing opens.
  if (isPostgresUrl(config.dbPath) && !config.vaultKey) {
    throw new StoreOpenError(
      'a PostgreSQL database needs PAYGATE_VAULT_KEY (the same 32-byte base64 key on every instance; generate one with `openssl rand -base64 32` and keep it with your secrets): no key file is kept beside a PostgreSQL database',
    );
  }
  // Refused now rather than after the store is opened: a refusal creates no database file.
  checkVaultKeyBeforeOpen(config.dbPath, config.vaultKey);
  const store = await openStore(config.dbPath, { PAYGATE_DB_POOL: config.dbPool });
  try {
    const zone = await store.settleZone(config.zone);
    const clock = opts.clock ?? systemClock;
    const { vault, loaded } = await openVault(
      store,
      config.dbPath,
      config.vaultKey,
      opts.vaultRotation ? { rotation: opts.vaultRotation } : {},
    );
    await keyFingerprints(store, vault);
    const channel = (opts.channel ?? createSandboxChannel)({ store, clock });
    // Links are built from one public URL for every process: the recorded one unless the
    // environment names another (services/public-url.ts).
    if (!config.publicUrlFromEnv) {
      const recorded = await store.getMeta(PUBLIC_URL_META_KEY);
      if (recorded) config.publicUrl = recorded;
    }
    const channels = createChannelRegistry({ sandbox: channel, vault, config });
    // Every process on a PostgreSQL database keeps to one budget per Stripe account (SPEC §13).
    useCallWindow(sharedCallWindow(store) ?? memoryCallWindow());
    return {
      store,
      clock,
      zone,
      vault,
      vaultKeySource: loaded.source,
      channel,
      channels,
      config,
      close: () => store.close(),
    };
  } catch (e) {
    await store.close();
    throw e;
  }
}

/**
 * Databases from before fingerprints were keyed hold plain hashes of requests (card data
 * included): rekey them under the vault key before anything reads or writes one (SPEC §10).
 */
async function keyFingerprints(store: Store, vault: Vault): Promise<void> {
  await store.keyPlainFingerprints({
    rekey: fingerprinter(vault),
    assertKey: (sealed) => {
      if (sealed === undefined) return;
      try {
        vault.decrypt(sealed);
      } catch {
        throw new StoreOpenError(
          'the vault key does not open this database (its merchant secrets do not decrypt): set the PAYGATE_VAULT_KEY it was created with',
        );
      }
    },
  });
}

/** The database's count of Stripe calls, where it keeps one for every process (PostgreSQL). */
function sharedCallWindow(store: Store): CallWindow | undefined {
  const { takeCallSlot, enterCallRunning, leaveCallRunning } = store;
  if (!takeCallSlot || !enterCallRunning || !leaveCallRunning) return undefined;
  return {
    take: (key, limit, now) => takeCallSlot.call(store, key, limit, now, CALL_WINDOW_MS),
    enter: (key, limit, now, until) => enterCallRunning.call(store, key, limit, now, until),
    leave: (key, until) => leaveCallRunning.call(store, key, until),
  };
}
