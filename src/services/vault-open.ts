import { isDatabaseUrl } from '../config.js';
import { META, type Store } from '../store/store.js';
import { loadVaultKey, VaultKeyError, vaultFromKey, type LoadedKey, type Vault } from '../vault/crypto.js';
import { keyCheckValue, openRetired, sameCheckValue } from '../vault/key-check.js';

export interface OpenedVault {
  vault: Vault;
  loaded: LoadedKey;
}

/**
 * What fixes a wrong key depends on the engine: a SQLite file may take its key from `<db>.key`
 * beside it; a PostgreSQL database never has a key file, only PAYGATE_VAULT_KEY.
 */
const mismatch = (dbPath: string, loaded: LoadedKey): VaultKeyError =>
  new VaultKeyError(
    `the vault key does not match this database (it was sealed under another key): ${
      loaded.source.kind === 'file' ? `${loaded.source.path} holds another key; ` : ''
    }set PAYGATE_VAULT_KEY to the key this database was created with${
      isDatabaseUrl(dbPath)
        ? ' (the same key on every instance that uses it)'
        : `, or restore its key file ${dbPath}.key beside it`
    }`,
  );

/**
 * Load the vault key for an open database and make sure it is this database's (SPEC §1, §10):
 * never a new key for a database with data, a mismatch refused before anything is read or written
 * with it, and the check value recorded on first use (databases from before it existed are checked
 * by decrypting one sealed value). `rotation: 'allow'` is for `paygate vault rotate` alone, which
 * resumes an unfinished rotation; everything else refuses to open a database mid-rotation.
 */
export async function openVault(
  store: Store,
  dbPath: string,
  envKey: string | undefined,
  opts: { rotation?: 'allow' } = {},
): Promise<OpenedVault> {
  const holds = await store.holdsSealedData();
  const loaded = loadVaultKey(dbPath, envKey, () => !holds);
  const plain = vaultFromKey(loaded.key);
  const kcv = keyCheckValue(plain);
  const recorded = await store.getMeta(META.keyCheck);
  if (recorded !== undefined) {
    if (!sameCheckValue(recorded, kcv)) throw mismatch(dbPath, loaded);
  } else {
    const sample = await store.anySealedValue();
    if (sample !== undefined) {
      try {
        plain.decrypt(sample);
      } catch {
        throw mismatch(dbPath, loaded);
      }
    }
    // Two processes opening a new database with different keys: the first to record wins.
    if (!sameCheckValue(await store.transaction((tx) => tx.claimMeta(META.keyCheck, kcv)), kcv))
      throw mismatch(dbPath, loaded);
  }
  if ((await store.getMeta(META.rotatingTo)) !== undefined && opts.rotation !== 'allow') {
    throw new VaultKeyError(
      'a vault key rotation was started and has not finished: run `paygate vault rotate` again with the same new key to finish it before anything else uses the database',
    );
  }
  const retired = await store.getMeta(META.pinned);
  return { vault: retired === undefined ? plain : vaultFromKey(loaded.key, openRetired(retired, plain)), loaded };
}
