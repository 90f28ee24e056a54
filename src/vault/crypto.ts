import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import { closeSync, fstatSync, linkSync, lstatSync, openSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';

/**
 * AES-256-GCM under the vault key (SPEC §1, §10). Ciphertext text form:
 * `v1.<iv b64url>.<tag b64url>.<data b64url>`.
 */
export interface Vault {
  encrypt(plain: string): string;
  decrypt(sealed: string): string;
  /**
   * A 32-byte key for another purpose (HMAC-SHA256 of the purpose under the vault key): every
   * process on this database derives the same one, and it reveals nothing of the vault key.
   * Always the current key's: what is written now must not be computable from an earlier key.
   */
  derive(purpose: string): Buffer;
  /**
   * The same purpose's keys derived from earlier vault keys, newest first, kept by rotations to
   * recognise what was written under them (fingerprints of past requests cannot be recomputed
   * under a new key: the requests are not kept). Only ever compared with, never written with.
   */
  retired(purpose: string): readonly RetiredKey[];
}

export interface RetiredKey {
  key: Buffer;
  /** Real time (ms) after which nothing made under it is accepted any more; absent: for good. */
  until?: number;
}

/**
 * `retired` holds the derived keys of earlier vault keys that `paygate vault rotate` kept (sealed
 * under the new key, vault/key-check.ts), by purpose.
 */
export function vaultFromKey(key: Buffer, retired: ReadonlyMap<string, readonly RetiredKey[]> = new Map()): Vault {
  if (key.length !== 32) throw new Error('the vault key must be 32 bytes (base64 of 32 random bytes)');
  const derived = new Map<string, Buffer>();
  return {
    encrypt(plain) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return [
        'v1',
        iv.toString('base64url'),
        cipher.getAuthTag().toString('base64url'),
        data.toString('base64url'),
      ].join('.');
    },
    decrypt(sealed) {
      const [version, iv, tag, data] = sealed.split('.');
      if (version !== 'v1' || !iv || !tag || data === undefined) throw new Error('vault: unreadable ciphertext');
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
    },
    derive(purpose) {
      // Asked on every signed request (fingerprints, signature keys): derived once per purpose.
      let k = derived.get(purpose);
      if (!k) {
        k = createHmac('sha256', key).update(`paygate-derived-key:${purpose}`).digest();
        derived.set(purpose, k);
      }
      return k;
    },
    retired: (purpose) => retired.get(purpose) ?? [],
  };
}

/** A new random vault key, as the base64 text PAYGATE_VAULT_KEY and `<db>.key` hold. */
export function newVaultKeyText(): string {
  return randomBytes(32).toString('base64');
}

/** Parse a vault key's base64 text; `where` names its source in the error. */
export function parseVaultKey(text: string, where: string): Buffer {
  const key = Buffer.from(text.trim(), 'base64');
  if (key.length !== 32)
    throw new VaultKeyError(`${where} must be base64 of exactly 32 bytes (make one with: paygate vault new-key)`);
  return key;
}

/** A vault key that is missing, malformed or not this database's: a clear refusal, never a new key. */
export class VaultKeyError extends Error {}

export type VaultKeySource = { kind: 'env' } | { kind: 'file'; path: string } | { kind: 'memory' };

export interface LoadedKey {
  key: Buffer;
  source: VaultKeySource;
}

/**
 * The key comes from PAYGATE_VAULT_KEY, else from `<db>.key`. A new key is generated into
 * `<db>.key` (mode 0600) only when `mayCreate` says the database holds nothing a key could have
 * sealed: a database with data whose key is missing is refused, because a fresh key would not open
 * its cards and secrets and would silently split the database in two. An in-memory database
 * (`:memory:`) without the variable gets a process-lifetime key.
 */
export function loadVaultKey(
  dbPath: string,
  envKey: string | undefined,
  mayCreate: () => boolean = () => true,
): LoadedKey {
  if (envKey) return { key: parseVaultKey(envKey, 'PAYGATE_VAULT_KEY'), source: { kind: 'env' } };
  if (dbPath === ':memory:') return { key: randomBytes(32), source: { kind: 'memory' } };
  const keyPath = `${dbPath}.key`;
  if (pathTaken(keyPath)) return readKeyAt(keyPath);
  if (!mayCreate()) {
    throw new VaultKeyError(
      `this database holds data but its vault key was not found: set PAYGATE_VAULT_KEY to the key it was created with, or put its ${keyPath} back (a new key would not open its cards and secrets)`,
    );
  }
  const key = randomBytes(32);
  if (linkNewKeyFile(keyPath, key)) return { key, source: { kind: 'file', path: keyPath } };
  // Something took the path between the check and the link: another process's first run (its key
  // is the one to use), or a link to nowhere. Read it once; what cannot be read is refused.
  return readKeyAt(keyPath);
}

/**
 * What `loadVaultKey` would refuse whatever the database holds, checked before the database is
 * opened: a PAYGATE_VAULT_KEY that is not base64 of 32 bytes, or a `<db>.key` that cannot be read
 * (a link to nowhere, a directory, a file others can read, not a key), is refused before a new
 * database file is created (and migrated) for it.
 */
export function checkVaultKeyBeforeOpen(dbPath: string, envKey: string | undefined): void {
  if (envKey) {
    parseVaultKey(envKey, 'PAYGATE_VAULT_KEY');
    return;
  }
  if (dbPath === ':memory:') return;
  const keyPath = `${dbPath}.key`;
  if (pathTaken(keyPath)) readKeyAt(keyPath);
}

const readKeyAt = (keyPath: string): LoadedKey => ({
  key: parseVaultKey(readKeyFile(keyPath), keyPath),
  source: { kind: 'file', path: keyPath },
});

/**
 * Whether anything is at `path`, a link to a missing file included (existsSync follows links and
 * says no to one, and a key generated "beside" it could then never be linked into place).
 */
function pathTaken(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    // Anything else (EACCES) is for readKeyFile to report in its own words.
    return code !== 'ENOENT' && code !== 'ENOTDIR';
  }
}

/**
 * Write a private temp file, then link it into place: link() is atomic and fails if another
 * process got there first, so concurrent first runs agree on one key and never read a half file.
 * False when the path was taken; the temp file is removed in every case.
 */
function linkNewKeyFile(keyPath: string, key: Buffer): boolean {
  const tmp = `${keyPath}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const fd = openSync(tmp, 'wx', 0o600);
  try {
    try {
      writeFileSync(fd, key.toString('base64') + '\n');
    } finally {
      closeSync(fd);
    }
    linkSync(tmp, keyPath);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw e;
  } finally {
    unlinkSync(tmp);
  }
}

/**
 * The text of a vault key file. Like ssh with a private key, a file that group or others can
 * read or replace is refused (SPEC §1), with the command that fixes it: paygate does not change
 * the mode of a file it did not create. The mode is read from the open file, so it is the mode
 * of what is read.
 */
export function readKeyFile(path: string): string {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT' && isLink(path)) {
      throw new VaultKeyError(
        `the vault key file ${path} is a symbolic link to a file that does not exist: restore the key file it points to, or set PAYGATE_VAULT_KEY`,
      );
    }
    throw new VaultKeyError(`cannot read the vault key file ${path}: ${(e as Error).message}`);
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new VaultKeyError(`the vault key file ${path} is not a regular file`);
    const mode = st.mode & 0o777;
    if ((mode & 0o077) !== 0) {
      throw new VaultKeyError(
        `the vault key file ${path} is accessible by group or others (mode 0${mode.toString(8)}); make it private and try again: chmod 600 ${shellWord(path)}`,
      );
    }
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}

function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

/** A path as one shell word, so the printed command can be pasted as it is. */
const shellWord = (text: string): string =>
  /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", "'\\''")}'`;
