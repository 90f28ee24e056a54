import type { AppConfig } from './config.js';
import { openStore, StoreOpenError, type Db, type Sqlite } from './store/client.js';
import { systemClock, type Clock } from './domain/clock.js';
import type { Vault, VaultKeySource } from './vault/crypto.js';
import { openVault } from './vault/open.js';
import type { Channel } from './channel/channel.js';
import { createSandboxChannel } from './channel/sandbox.js';
import { createWriter, type Writer } from './store/writer.js';
import { anySealedSecret, keyPlainFingerprints } from './store/fingerprints.js';
import { fingerprinter } from './vault/fingerprint.js';

/**
 * The composition root: config → store, clock, vault, channel. Services receive this as
 * `ctx` and never build any of it themselves.
 */
export interface Ctx {
  db: Db;
  sqlite: Sqlite;
  /** Group-committed write transactions for request paths (store/writer.ts). */
  writer: Writer;
  clock: Clock;
  /** The database's time zone: every time string and billing calendar uses it. */
  zone: string;
  vault: Vault;
  /** Where the vault key came from (a rotation writes the new key back to a key file). */
  vaultKeySource: VaultKeySource;
  channel: Channel;
  config: AppConfig;
  close(): void;
}

export interface ChannelDeps {
  sqlite: Sqlite;
  writer: Writer;
  clock: Clock;
}

export interface OpenAppOptions {
  clock?: Clock;
  /** Another channel implementation; the sandbox channel by default. */
  channel?: (deps: ChannelDeps) => Channel;
  /** Only `paygate vault rotate`: open a database whose key rotation has not finished. */
  vaultRotation?: 'allow';
}

export function openApp(config: AppConfig, opts: OpenAppOptions = {}): Ctx {
  const { db, sqlite } = openStore(config.dbPath);
  try {
    const zone = settleZone(sqlite, config.zone);
    const clock = opts.clock ?? systemClock;
    const { vault, loaded } = openVault(sqlite, config.dbPath, config.vaultKey, opts.vaultRotation ? { rotation: opts.vaultRotation } : {});
    keyFingerprints(sqlite, vault);
    const writer = createWriter(sqlite);
    const channel = (opts.channel ?? createSandboxChannel)({ sqlite, writer, clock });
    return { db, sqlite, writer, clock, zone, vault, vaultKeySource: loaded.source, channel, config, close: () => sqlite.close() };
  } catch (e) {
    sqlite.close();
    throw e;
  }
}

/**
 * Databases from before fingerprints were keyed hold plain hashes of requests (card data
 * included): rekey them under the vault key before anything reads or writes one (SPEC §10).
 */
function keyFingerprints(sqlite: Sqlite, vault: Vault): void {
  keyPlainFingerprints(sqlite, {
    rekey: fingerprinter(vault),
    assertKey: () => {
      const sealed = anySealedSecret(sqlite);
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

/**
 * The zone is recorded when the database is created; a later explicit different zone is refused
 * because stored billing times would shift (SPEC §1). No explicit zone means the recorded one.
 */
function settleZone(sqlite: Sqlite, wanted: string | undefined): string {
  const row = sqlite.prepare("SELECT value FROM meta WHERE key = 'tz'").get() as { value: string } | undefined;
  if (row) {
    if (wanted !== undefined && wanted !== row.value) {
      throw new StoreOpenError(
        `this database uses time zone ${row.value}; it cannot be opened with ${wanted} (billing times would shift)`,
      );
    }
    return row.value;
  }
  const zone = wanted ?? 'UTC';
  sqlite.prepare("INSERT INTO meta (key, value) VALUES ('tz', ?) ON CONFLICT (key) DO NOTHING").run(zone);
  return settleZone(sqlite, wanted);
}
