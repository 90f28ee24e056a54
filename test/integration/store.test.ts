import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { openSqlite } from '../../src/store/sqlite/client.js';
import { StoreOpenError } from '../../src/store/store.js';
import { TEST_VAULT_KEY, tempDir } from '../helpers/ctx.js';

const cleanups: (() => void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) c();
});

function dir(): string {
  const d = tempDir();
  cleanups.push(d.cleanup);
  return d.dir;
}

describe('the store', () => {
  it('migrates an empty database to every table', async () => {
    const sqlite = openSqlite(join(dir(), 'a.db'));
    const tables = (
      sqlite.prepare("SELECT name FROM sqlite_master WHERE type='table'").all() as { name: string }[]
    ).map((r) => r.name);
    for (const t of [
      'merchants',
      'plans',
      'subscriptions',
      'billing_records',
      'transactions',
      'refunds',
      'tracking_entries',
      'cards',
      'idempotency_keys',
      'outbox_events',
      'sandbox_charges',
    ]) {
      expect(tables).toContain(t);
    }
    sqlite.close();
  });

  it('runs WAL with synchronous=FULL, foreign keys and a busy timeout', async () => {
    const sqlite = openSqlite(join(dir(), 'a.db'));
    expect(sqlite.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(sqlite.pragma('synchronous', { simple: true })).toBe(2);
    expect(sqlite.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(Number(sqlite.pragma('busy_timeout', { simple: true }))).toBeGreaterThan(0);
    sqlite.close();
  });

  it('opens an already migrated database without migrating again', async () => {
    const path = join(dir(), 'a.db');
    openSqlite(path).close();
    const sqlite = openSqlite(path);
    const n = (sqlite.prepare('SELECT count(*) AS n FROM __drizzle_migrations').get() as { n: number }).n;
    expect(n).toBeGreaterThan(0);
    sqlite.close();
    const again = openSqlite(path);
    expect((again.prepare('SELECT count(*) AS n FROM __drizzle_migrations').get() as { n: number }).n).toBe(n);
    again.close();
  });

  it('refuses a database written by a newer schema', async () => {
    const path = join(dir(), 'a.db');
    const sqlite = openSqlite(path);
    sqlite
      .prepare('INSERT INTO __drizzle_migrations (hash, created_at) VALUES (?, ?)')
      .run('future', 9_999_999_999_999);
    sqlite.close();
    expect(() => openSqlite(path)).toThrowError(/newer version of paygate/);
  });

  it('refuses a path in a missing directory', async () => {
    expect(() => openSqlite(join(dir(), 'missing', 'a.db'))).toThrowError(StoreOpenError);
  });

  it('records the time zone on creation and refuses another one later', async () => {
    const path = join(dir(), 'a.db');
    const env = { PAYGATE_VAULT_KEY: TEST_VAULT_KEY };
    await (await openApp(loadConfig({ db: path, tz: 'Europe/Berlin' }, env))).close();
    const ctx = await openApp(loadConfig({ db: path }, env));
    expect(ctx.zone).toBe('Europe/Berlin');
    await ctx.close();
    await expect(openApp(loadConfig({ db: path, tz: 'UTC' }, env))).rejects.toThrowError(/Europe\/Berlin/);
  });

  it('refuses an unknown time zone', async () => {
    expect(() => loadConfig({ db: 'x.db', tz: 'Mars/Olympus' }, {})).toThrowError(/time zone/);
  });
});
