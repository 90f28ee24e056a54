import { randomBytes } from 'node:crypto';
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { Database } from '../../src/store/sqlite/driver.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BIN, paygate } from '../helpers/cli.js';
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

interface Shop {
  merchantId: string;
  subscriptionId: string;
}

/** A database with a merchant, a plan and a subscription whose card is vaulted. */
function populate(db: string, env: NodeJS.ProcessEnv): Shop {
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

/** The key the 'env' shop is sealed under (as PAYGATE_VAULT_KEY). */
const SHOP_KEY = key();
const templates = { env: '', file: '' };
const shops: Record<'env' | 'file', Shop> = {
  env: { merchantId: '', subscriptionId: '' },
  file: { merchantId: '', subscriptionId: '' },
};
let dropTemplates = (): void => {};

// Three CLI runs make a shop, seconds each on a loaded machine: each shop is made once, and
// every test works on a copy of it (the processes have exited, so the file alone is the database).
beforeAll(() => {
  const t = tempDir('paygate-vault-shops-');
  dropTemplates = t.cleanup;
  templates.env = join(t.dir, 'env.db');
  shops.env = populate(templates.env, { PAYGATE_VAULT_KEY: SHOP_KEY });
  templates.file = join(t.dir, 'file.db');
  shops.file = populate(templates.file, NO_ENV_KEY);
}, 120_000);
afterAll(() => dropTemplates());

/** A copy of a shop: sealed under SHOP_KEY ('env'), or under its own `<db>.key` beside it ('file'). */
function populated(db: string, keyed: 'env' | 'file'): Shop {
  copyFileSync(templates[keyed], db);
  if (keyed === 'file') copyFileSync(`${templates.file}.key`, `${db}.key`);
  return shops[keyed];
}

describe('the vault key must be the database’s own', () => {
  it('a restored backup opened without its key is refused, and no new key is made for it', () => {
    const d = dir();
    const db = join(d, 'shop.db');
    populated(db, 'env');
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
    populated(db, 'env');
    const viaEnv = paygate(['--db', db, 'renew'], { env: { PAYGATE_VAULT_KEY: key() } });
    expect(viaEnv.status).toBe(2);
    expect(viaEnv.stderr).toMatch(/vault key does not match this database/);
    expect(viaEnv.stderr).toContain(`or restore its key file ${db}.key beside it`);
    writeFileSync(`${db}.key`, `${key()}\n`, { mode: 0o600 });
    const viaFile = paygate(['--db', db, 'merchant', 'list'], { env: NO_ENV_KEY });
    expect(viaFile.status).toBe(2);
    expect(viaFile.stderr).toContain(`${db}.key holds another key`);
  });

  it('a database written before the key check value existed is checked against a sealed secret, then recorded', () => {
    const db = join(dir(), 'old.db');
    const right = SHOP_KEY;
    populated(db, 'env');
    const raw = new Database(db);
    raw.prepare("DELETE FROM meta WHERE key = 'vault_kcv'").run();
    raw.close();
    expect(paygate(['--db', db, 'merchant', 'list'], { env: { PAYGATE_VAULT_KEY: key() } }).status).toBe(2);
    expect(paygate(['--db', db, 'merchant', 'list'], { env: { PAYGATE_VAULT_KEY: right } }).status).toBe(0);
    const check = new Database(db, { readonly: true });
    expect(check.prepare("SELECT value FROM meta WHERE key = 'vault_kcv'").get()).toBeDefined();
    check.close();
  });

  it('a malformed PAYGATE_VAULT_KEY is refused in one line before any database file is created', () => {
    const d = dir();
    const db = join(d, 'fresh.db');
    const r = paygate(['--db', db, 'merchant', 'list'], { env: { PAYGATE_VAULT_KEY: 'abc' } });
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual([
      'error startup: PAYGATE_VAULT_KEY must be base64 of exactly 32 bytes (make one with: paygate vault new-key)',
    ]);
    expect(readdirSync(d)).toEqual([]);
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
    populated(db, 'file');
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

  it('a <db>.key that is a link to a missing file is refused in one line, before any database file is created', () => {
    const d = dir();
    const db = join(d, 'k.db');
    symlinkSync(join(d, 'gone', 'nokey'), `${db}.key`);
    const r = paygate(['--db', db, 'merchant', 'list'], { env: NO_ENV_KEY });
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual([
      `error startup: the vault key file ${db}.key is a symbolic link to a file that does not exist: restore the key file it points to, or set PAYGATE_VAULT_KEY`,
    ]);
    // No temp key files, no database: only the link, as it was.
    expect(readdirSync(d)).toEqual(['k.db.key']);
    expect(readlinkSync(`${db}.key`)).toBe(join(d, 'gone', 'nokey'));
  });

  it('a --new-key-file readable by group or others is refused before anything is re-encrypted', () => {
    const d = dir();
    const db = join(d, 'shop.db');
    populated(db, 'file');
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
  it('prints a fresh base64 key of 32 bytes alone on one line, also off a terminal; --json gives {"key"}', () => {
    const a = paygate(['vault', 'new-key']);
    const b = paygate(['vault', 'new-key']);
    expect(a.status).toBe(0);
    expect(a.stdout).toMatch(/^[A-Za-z0-9+/]{43}=\n$/);
    expect(Buffer.from(a.stdout.trim(), 'base64')).toHaveLength(32);
    expect(a.stdout).not.toBe(b.stdout);
    const json = paygate(['--json', 'vault', 'new-key']);
    expect(Buffer.from(json.json().key, 'base64')).toHaveLength(32);
  });
});

/**
 * SPEC §12: the README's vault recipes, run by a shell exactly as written (each must also be in
 * the README word for word), with `paygate` on PATH and PAYGATE_DB naming the database.
 */
describe('the README vault recipes work as written', () => {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const GENERATE = 'export PAYGATE_VAULT_KEY=$(paygate vault new-key)';
  const ROTATE = ['(umask 077; paygate vault new-key > new.key)', 'paygate vault rotate --new-key-file new.key'];

  /** `sh -c script` in `cwd` under umask 022, with a `paygate` command that runs this build. */
  function shell(script: string, cwd: string, env: NodeJS.ProcessEnv): SpawnSyncReturns<string> {
    const bin = join(cwd, 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'paygate'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`, { mode: 0o700 });
    return spawnSync('sh', ['-c', `umask 022\n${script}`], {
      cwd,
      encoding: 'utf8',
      env: { PATH: `${bin}:${process.env.PATH}`, HOME: process.env.HOME, ...env },
    });
  }

  it('export PAYGATE_VAULT_KEY=$(paygate vault new-key) gives a key a new database is sealed under', () => {
    expect(readme).toContain(GENERATE);
    const d = dir();
    const db = join(d, 'shop.db');
    const r = shell(`${GENERATE}\npaygate merchant create --name Shop >/dev/null\nprintf %s "$PAYGATE_VAULT_KEY"`, d, {
      PAYGATE_DB: db,
    });
    expect(r.status, r.stderr).toBe(0);
    expect(Buffer.from(r.stdout, 'base64')).toHaveLength(32);
    expect(existsSync(`${db}.key`)).toBe(false);
    expect(paygate(['--db', db, 'merchant', 'list'], { env: { PAYGATE_VAULT_KEY: r.stdout } }).json()).toHaveLength(1);
  });

  it('(umask 077; paygate vault new-key > new.key) then vault rotate --new-key-file new.key re-keys the database', () => {
    for (const line of ROTATE) expect(readme).toContain(line);
    const d = dir();
    const db = join(d, 'shop.db');
    populated(db, 'file');
    const old = readFileSync(`${db}.key`, 'utf8');
    const r = shell(ROTATE.join('\n'), d, { PAYGATE_DB: db, PAYGATE_VAULT_KEY: '' });
    expect(r.status, r.stderr).toBe(0);
    expect(statSync(join(d, 'new.key')).mode & 0o777).toBe(0o600);
    const next = readFileSync(join(d, 'new.key'), 'utf8');
    expect(readFileSync(`${db}.key`, 'utf8').trim()).toBe(next.trim());
    expect(next).not.toBe(old);
    expect(paygate(['--db', db, 'merchant', 'list'], { env: NO_ENV_KEY }).status).toBe(0);
  });
});

describe('paygate vault rotate', () => {
  it('re-encrypts every card and secret under the new key and writes it to the key file; renewals still charge', () => {
    const d = dir();
    const db = join(d, 'shop.db');
    const { subscriptionId } = populated(db, 'file');
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
    const current = SHOP_KEY;
    populated(db, 'env');
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
    populated(db, 'file');
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
