import { randomBytes } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { paygate } from '../helpers/cli.js';
import { paygatePty } from '../helpers/pty.js';
import { tempDir } from '../helpers/env.js';

const NO_ENV_KEY = { PAYGATE_VAULT_KEY: '' };
const key = (): string => randomBytes(32).toString('base64');
const year = String(new Date().getUTCFullYear() + 2);

let cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups) c();
  cleanups = [];
});
function dir(): string {
  const t = tempDir('paygate-vault-');
  cleanups.push(t.cleanup);
  return t.dir;
}

/** A database with a merchant, a plan and a subscription whose card is vaulted. */
function populated(db: string, env: NodeJS.ProcessEnv): { merchantId: string; subscriptionId: string } {
  const m = paygate(['--db', db, 'merchant', 'create', '--name', 'Shop'], { env });
  expect(m.status, m.stderr).toBe(0);
  const merchantId = m.json().merchantId as string;
  const plan = paygate(['--db', db, 'plan', 'create', '--name', 'Gold', '--price', '9.99', '--cycle-type', 'MONTHLY'], {
    env,
  });
  expect(plan.status, plan.stderr).toBe(0);
  const sub = paygate(
    [
      '--db',
      db,
      'subscribe',
      '--plan',
      plan.json().planId,
      '--user',
      'u-1',
      '--card',
      '4242424242424242',
      '--exp',
      `12/${year}`,
      '--cvv',
      '123',
    ],
    { env },
  );
  expect(sub.status, sub.stderr).toBe(0);
  return { merchantId, subscriptionId: sub.json().subscriptionId as string };
}

describe('the vault key must be the database’s own', () => {
  it('a restored backup opened without its key is refused, and no new key is made for it', () => {
    const d = dir();
    const db = join(d, 'shop.db');
    populated(db, { PAYGATE_VAULT_KEY: key() });
    const restored = join(dir(), 'restored.db');
    copyFileSync(db, restored);
    const r = paygate(['--db', restored, 'merchant', 'list'], { env: NO_ENV_KEY });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/vault key was not found: set PAYGATE_VAULT_KEY/);
    expect(r.stderr).toContain(`${restored}.key`);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(existsSync(`${restored}.key`)).toBe(false);
  });

  it('a different key is refused before anything runs (PAYGATE_VAULT_KEY or a <db>.key file)', () => {
    const db = join(dir(), 'shop.db');
    populated(db, { PAYGATE_VAULT_KEY: key() });
    const viaEnv = paygate(['--db', db, 'renew'], { env: { PAYGATE_VAULT_KEY: key() } });
    expect(viaEnv.status).toBe(2);
    expect(viaEnv.stderr).toMatch(/vault key does not match this database/);
    writeFileSync(`${db}.key`, `${key()}\n`, { mode: 0o600 });
    const viaFile = paygate(['--db', db, 'merchant', 'list'], { env: NO_ENV_KEY });
    expect(viaFile.status).toBe(2);
    expect(viaFile.stderr).toContain(`${db}.key holds another key`);
  });

  it('a database written before the key check value existed is checked against a sealed secret, then recorded', () => {
    const db = join(dir(), 'old.db');
    const right = key();
    populated(db, { PAYGATE_VAULT_KEY: right });
    const raw = new Database(db);
    raw.prepare("DELETE FROM meta WHERE key = 'vault_kcv'").run();
    raw.close();
    expect(paygate(['--db', db, 'merchant', 'list'], { env: { PAYGATE_VAULT_KEY: key() } }).status).toBe(2);
    expect(paygate(['--db', db, 'merchant', 'list'], { env: { PAYGATE_VAULT_KEY: right } }).status).toBe(0);
    const check = new Database(db, { readonly: true });
    expect(check.prepare("SELECT value FROM meta WHERE key = 'vault_kcv'").get()).toBeDefined();
    check.close();
  });

  it('a new empty database still gets its key file made on first use', () => {
    const db = join(dir(), 'new.db');
    expect(paygate(['--db', db, 'merchant', 'list'], { env: NO_ENV_KEY }).status).toBe(0);
    expect(statSync(`${db}.key`).mode & 0o777).toBe(0o600);
  });
});

describe('a vault key file must be private to its owner (SPEC §1, like ssh with a private key)', () => {
  it('a <db>.key readable by group or others is refused with the chmod 600 that fixes it, and left as it is', () => {
    const db = join(dir(), 'shop.db');
    populated(db, NO_ENV_KEY);
    chmodSync(`${db}.key`, 0o644);
    const before = readFileSync(`${db}.key`, 'utf8');
    const r = paygate(['--db', db, 'merchant', 'list'], { env: NO_ENV_KEY });
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain(`${db}.key is accessible by group or others (mode 0644)`);
    expect(r.stderr.trim().endsWith(`chmod 600 ${db}.key`)).toBe(true);
    expect(statSync(`${db}.key`).mode & 0o777).toBe(0o644);
    expect(readFileSync(`${db}.key`, 'utf8')).toBe(before);

    chmodSync(`${db}.key`, 0o600);
    expect(paygate(['--db', db, 'merchant', 'list'], { env: NO_ENV_KEY }).status).toBe(0);
  });

  it('a --new-key-file readable by group or others is refused before anything is re-encrypted', () => {
    const d = dir();
    const db = join(d, 'shop.db');
    populated(db, NO_ENV_KEY);
    const oldKey = readFileSync(`${db}.key`, 'utf8');
    const newKeyFile = join(d, 'new.key');
    writeFileSync(newKeyFile, key());
    chmodSync(newKeyFile, 0o644);
    const r = paygate(['--db', db, 'vault', 'rotate', '--new-key-file', newKeyFile], { env: NO_ENV_KEY });
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain(`chmod 600 ${newKeyFile}`);
    expect(readFileSync(`${db}.key`, 'utf8')).toBe(oldKey);
    expect(statSync(newKeyFile).mode & 0o777).toBe(0o644);
  });
});

describe('paygate vault new-key', () => {
  it('prints a fresh base64 key of 32 bytes', () => {
    const a = paygate(['vault', 'new-key']);
    const b = paygate(['vault', 'new-key']);
    expect(a.status).toBe(0);
    expect(Buffer.from(a.json().key, 'base64')).toHaveLength(32);
    expect(a.json().key).not.toBe(b.json().key);
  });
});

describe('paygate vault rotate', () => {
  it('re-encrypts every card and secret under the new key and writes it to the key file; renewals still charge', () => {
    const d = dir();
    const db = join(d, 'shop.db');
    const { subscriptionId } = populated(db, NO_ENV_KEY);
    const oldKey = readFileSync(`${db}.key`, 'utf8').trim();
    const sealedBefore = new Database(db, { readonly: true }).prepare('SELECT pan_enc FROM cards').pluck().get();
    const newKeyFile = join(d, 'new.key');
    const newKey = key();
    writeFileSync(newKeyFile, newKey, { mode: 0o600 });

    const r = paygate(['--db', db, 'vault', 'rotate', '--new-key-file', newKeyFile], { env: NO_ENV_KEY });
    expect(r.status, r.stderr).toBe(0);
    expect(r.json()).toMatchObject({ reencrypted: 2, alreadyDone: 0, keyFile: `${db}.key` });
    expect(readFileSync(`${db}.key`, 'utf8').trim()).toBe(newKey);
    expect(statSync(`${db}.key`).mode & 0o777).toBe(0o600);
    expect(new Database(db, { readonly: true }).prepare('SELECT pan_enc FROM cards').pluck().get()).not.toBe(
      sealedBefore,
    );

    // The old key no longer opens the database; the new one does, and the vaulted card still charges.
    expect(paygate(['--db', db, 'merchant', 'list'], { env: { PAYGATE_VAULT_KEY: oldKey } }).status).toBe(2);
    const renew = paygate(['--db', db, 'renew', '--at', `${Number(year) - 1}-12-31 00:00:00`], { env: NO_ENV_KEY });
    expect(renew.status, renew.stderr).toBe(0);
    expect(renew.json()).toMatchObject({ succeeded: expect.any(Number), failed: 0 });
    expect(renew.json().succeeded).toBeGreaterThan(0);
    const show = paygate(['--db', db, 'sub', 'show', subscriptionId], { env: NO_ENV_KEY });
    expect(show.status, show.stderr).toBe(0);
  });

  it('refuses without a new key, with a malformed one, or with the current one', () => {
    const d = dir();
    const db = join(d, 'shop.db');
    const current = key();
    populated(db, { PAYGATE_VAULT_KEY: current });
    expect(paygate(['--db', db, 'vault', 'rotate'], { env: { PAYGATE_VAULT_KEY: current } }).status).toBe(2);
    const bad = paygate(['--db', db, 'vault', 'rotate'], {
      env: { PAYGATE_VAULT_KEY: current, PAYGATE_NEW_VAULT_KEY: 'short' },
    });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/PAYGATE_NEW_VAULT_KEY must be base64 of exactly 32 bytes/);
    const same = paygate(['--db', db, 'vault', 'rotate'], {
      env: { PAYGATE_VAULT_KEY: current, PAYGATE_NEW_VAULT_KEY: current },
    });
    expect(same.status).toBe(1);
    expect(same.stderr).toMatch(/already this database/);
  });

  it('asks before rotating on a terminal; answering no changes nothing', async () => {
    const d = dir();
    const db = join(d, 'shop.db');
    populated(db, NO_ENV_KEY);
    const before = readFileSync(`${db}.key`, 'utf8');
    const newKeyFile = join(d, 'new.key');
    writeFileSync(newKeyFile, key(), { mode: 0o600 });
    const t = paygatePty(['--db', db, '--no-color', 'vault', 'rotate', '--new-key-file', newKeyFile], {
      env: NO_ENV_KEY,
    });
    await t.waitFor('Re-encrypt 2 stored cards and secrets');
    t.type('n\r');
    expect(await t.exit).toBe(1);
    expect(t.output()).toContain('nothing changed');
    expect(readFileSync(`${db}.key`, 'utf8')).toBe(before);
    expect(paygate(['--db', db, 'merchant', 'list'], { env: NO_ENV_KEY }).status).toBe(0);
  });
});
