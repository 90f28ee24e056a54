import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync, linkSync, unlinkSync } from 'node:fs';

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
   */
  derive(purpose: string): Buffer;
}

export function vaultFromKey(key: Buffer): Vault {
  if (key.length !== 32) throw new Error('the vault key must be 32 bytes (base64 of 32 random bytes)');
  return {
    encrypt(plain) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), data.toString('base64url')].join('.');
    },
    decrypt(sealed) {
      const [version, iv, tag, data] = sealed.split('.');
      if (version !== 'v1' || !iv || !tag || data === undefined) throw new Error('vault: unreadable ciphertext');
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
    },
    derive(purpose) {
      return createHmac('sha256', key).update(`paygate-derived-key:${purpose}`).digest();
    },
  };
}

/**
 * The key comes from PAYGATE_VAULT_KEY, else from `<db>.key` (created on first use, mode 0600).
 * An in-memory database (`:memory:`) without the variable gets a process-lifetime key.
 */
export function loadVaultKey(dbPath: string, envKey: string | undefined): Buffer {
  if (envKey) {
    const key = Buffer.from(envKey, 'base64');
    if (key.length !== 32) throw new Error('PAYGATE_VAULT_KEY must be base64 of exactly 32 bytes');
    return key;
  }
  if (dbPath === ':memory:') return randomBytes(32);
  const keyPath = `${dbPath}.key`;
  if (existsSync(keyPath)) {
    const key = Buffer.from(readFileSync(keyPath, 'utf8').trim(), 'base64');
    if (key.length !== 32) throw new Error(`${keyPath} does not hold a 32-byte base64 key`);
    return key;
  }
  const key = randomBytes(32);
  // Write a private temp file, then link it into place: link() is atomic and fails if another
  // process got there first, so concurrent first runs agree on one key and never read a half file.
  const tmp = `${keyPath}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(tmp, key.toString('base64') + '\n', { mode: 0o600 });
  try {
    linkSync(tmp, keyPath);
    return key;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return loadVaultKey(dbPath, undefined);
    throw e;
  } finally {
    unlinkSync(tmp);
  }
}
