import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createCsrf } from '../../src/http/pages/csrf.js';
import { loadVaultKey, vaultFromKey } from '../../src/vault/crypto.js';
import { openRetired, retiredAfterRotation } from '../../src/vault/key-check.js';
import { tempDir } from '../helpers/ctx.js';

const PAN = '4242424242424242';
let cleanup: (() => void) | undefined;
afterEach(async () => cleanup?.());

describe('card vault (AES-256-GCM)', () => {
  it('decrypts what it encrypted, and the ciphertext holds no trace of the number', async () => {
    const vault = vaultFromKey(randomBytes(32));
    const sealed = vault.encrypt(PAN);
    expect(sealed).toMatch(/^v1\.[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(sealed).not.toContain(PAN);
    expect(sealed).not.toContain(Buffer.from(PAN).toString('base64url'));
    expect(vault.decrypt(sealed)).toBe(PAN);
  });

  it('encrypts the same number differently each time (fresh IV)', async () => {
    const vault = vaultFromKey(randomBytes(32));
    expect(vault.encrypt(PAN)).not.toBe(vault.encrypt(PAN));
  });

  it('refuses a tampered ciphertext and a different key', async () => {
    const key = randomBytes(32);
    const sealed = vaultFromKey(key).encrypt(PAN);
    const [v, iv, tag, data] = sealed.split('.') as [string, string, string, string];
    const flipped = Buffer.from(data, 'base64url');
    flipped[0] = (flipped[0] ?? 0) ^ 1;
    expect(() => vaultFromKey(key).decrypt([v, iv, tag, flipped.toString('base64url')].join('.'))).toThrow();
    expect(() => vaultFromKey(randomBytes(32)).decrypt(sealed)).toThrow();
    expect(() => vaultFromKey(key).decrypt('not a ciphertext')).toThrow(/unreadable/);
  });

  it('derives the same purpose key from the same vault key, and different ones otherwise', async () => {
    const key = randomBytes(32);
    const a = vaultFromKey(key).derive('hosted-page-csrf');
    expect(a).toHaveLength(32);
    expect(vaultFromKey(Buffer.from(key)).derive('hosted-page-csrf').equals(a)).toBe(true);
    expect(vaultFromKey(key).derive('other').equals(a)).toBe(false);
    expect(vaultFromKey(randomBytes(32)).derive('hosted-page-csrf').equals(a)).toBe(false);
    expect(a.equals(key)).toBe(false);
  });

  it('rejects a key that is not 32 bytes', async () => {
    expect(() => vaultFromKey(randomBytes(16))).toThrow(/32 bytes/);
    expect(() => loadVaultKey('/nowhere/x.db', randomBytes(16).toString('base64'))).toThrow(/PAYGATE_VAULT_KEY/);
  });
});

describe('vault key file beside the database', () => {
  it('is created on first use with mode 0600 and read back afterwards', async () => {
    const t = tempDir();
    cleanup = t.cleanup;
    const db = join(t.dir, 'pay.db');
    const first = loadVaultKey(db, undefined).key;
    expect(statSync(`${db}.key`).mode & 0o777).toBe(0o600);
    expect(Buffer.from(readFileSync(`${db}.key`, 'utf8').trim(), 'base64').equals(first)).toBe(true);
    expect(loadVaultKey(db, undefined).key.equals(first)).toBe(true);
  });

  it('a key file that is a link to a missing file is refused in one line, and no temp file is left', async () => {
    const t = tempDir();
    cleanup = t.cleanup;
    const db = join(t.dir, 'pay.db');
    symlinkSync(join(t.dir, 'missing'), `${db}.key`);
    expect(() => loadVaultKey(db, undefined)).toThrow(
      `the vault key file ${db}.key is a symbolic link to a file that does not exist`,
    );
    expect(readdirSync(t.dir)).toEqual(['pay.db.key']);
  });

  it('a path taken between the check and the link is read once: a link to nowhere is refused, no temp file left', async () => {
    const t = tempDir();
    cleanup = t.cleanup;
    const db = join(t.dir, 'pay.db');
    // mayCreate runs between the check and the link: the link appears there, as if made meanwhile.
    const linkMeanwhile = (): boolean => {
      symlinkSync(join(t.dir, 'missing'), `${db}.key`);
      return true;
    };
    expect(() => loadVaultKey(db, undefined, linkMeanwhile)).toThrow(
      /is a symbolic link to a file that does not exist/,
    );
    expect(readdirSync(t.dir)).toEqual(['pay.db.key']);
  });

  it('a key another process linked into place first is the one used', async () => {
    const t = tempDir();
    cleanup = t.cleanup;
    const db = join(t.dir, 'pay.db');
    const theirs = randomBytes(32);
    const writeMeanwhile = (): boolean => {
      writeFileSync(`${db}.key`, `${theirs.toString('base64')}\n`, { mode: 0o600 });
      return true;
    };
    expect(loadVaultKey(db, undefined, writeMeanwhile).key.equals(theirs)).toBe(true);
    expect(readdirSync(t.dir)).toEqual(['pay.db.key']);
  });

  it('gives way to PAYGATE_VAULT_KEY when it is set', async () => {
    const env = randomBytes(32);
    expect(loadVaultKey('/nowhere/x.db', env.toString('base64')).key.equals(env)).toBe(true);
  });
});

describe('hosted-page CSRF tokens', () => {
  it('verify in another process that shares the vault key (a restart, a second serve)', async () => {
    const key = randomBytes(32);
    const issued = createCsrf(vaultFromKey(key).derive('hosted-page-csrf')).issue('checkout', 'tok123');
    const other = createCsrf(vaultFromKey(Buffer.from(key)).derive('hosted-page-csrf'));
    expect(other.check('checkout', 'tok123', issued)).toBe(true);
  });

  it('do not verify for another page, another kind, another key, or when missing', async () => {
    const key = randomBytes(32);
    const csrf = createCsrf(vaultFromKey(key).derive('hosted-page-csrf'));
    const issued = csrf.issue('checkout', 'tok123');
    expect(csrf.check('checkout', 'tok124', issued)).toBe(false);
    expect(csrf.check('3ds', 'tok123', issued)).toBe(false);
    expect(
      createCsrf(vaultFromKey(randomBytes(32)).derive('hosted-page-csrf')).check('checkout', 'tok123', issued),
    ).toBe(false);
    expect(csrf.check('checkout', 'tok123', undefined)).toBe(false);
    expect(csrf.check('checkout', 'tok123', issued.slice(1))).toBe(false);
  });

  it('of a retired key verify until its time is up, and never without one', async () => {
    const old = randomBytes(32);
    const issued = createCsrf(old).issue('checkout', 'tok123');
    let now = 1_000;
    const csrf = createCsrf(randomBytes(32), [{ key: old, until: 2_000 }], () => now);
    expect(csrf.check('checkout', 'tok123', issued)).toBe(true);
    now = 2_000;
    expect(csrf.check('checkout', 'tok123', issued)).toBe(false);
    expect(createCsrf(randomBytes(32), [{ key: old }]).check('checkout', 'tok123', issued)).toBe(false);
  });
});

describe('derived keys kept by a vault key rotation', () => {
  it('are those of earlier versions when sealed by one: the pinned fingerprint key is retired, the pinned CSRF key dropped', async () => {
    const current = vaultFromKey(randomBytes(32));
    const old = vaultFromKey(randomBytes(32));
    const legacy = JSON.stringify({
      'request-fingerprint': old.derive('request-fingerprint').toString('base64'),
      'hosted-page-csrf': old.derive('hosted-page-csrf').toString('base64'),
    });
    const retired = openRetired(current.encrypt(legacy), current);
    expect(retired.get('request-fingerprint')).toEqual([{ key: old.derive('request-fingerprint') }]);
    expect(retired.has('hosted-page-csrf')).toBe(false);
  });

  it('drop earlier CSRF keys whose forms are past their lifetime, and keep every fingerprint key, newest first', async () => {
    const k0 = vaultFromKey(randomBytes(32));
    const k1 = vaultFromKey(randomBytes(32), retiredAfterRotation(k0, 1_000, 500));
    const k2 = vaultFromKey(randomBytes(32), retiredAfterRotation(k1, 2_000, 500));
    expect(k2.retired('request-fingerprint').map((r) => r.key)).toEqual([
      k1.derive('request-fingerprint'),
      k0.derive('request-fingerprint'),
    ]);
    expect(k2.retired('hosted-page-csrf')).toEqual([{ key: k1.derive('hosted-page-csrf'), until: 2_500 }]);
  });
});
