import { existsSync, readFileSync } from 'node:fs';
import { readMigrationFiles } from 'drizzle-orm/migrator';
import { join } from 'node:path';
import pg from 'pg';
import { Database } from '../../src/store/sqlite/driver.js';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { paygate } from '../helpers/cli.js';
import { tempDir } from '../helpers/env.js';
import { createPgDatabase, pgAvailable, type PgTestDatabase } from '../helpers/postgres.js';

const t = tempDir('paygate-migrate-');
afterAll(() => t.cleanup());
const DRIZZLE = join(import.meta.dirname, '../../drizzle');
const journal = JSON.parse(readFileSync(join(DRIZZLE, 'meta/_journal.json'), 'utf8')) as {
  entries: Array<{ tag: string }>;
};
const ALL = journal.entries.map((e) => e.tag);
const LAST = ALL.at(-1) as string;

/** A database as the release before the newest migration left it: every migration but the last, applied as the migrator does. */
function olderDatabase(db: string): void {
  const migrations = readMigrationFiles({ migrationsFolder: DRIZZLE });
  const raw = new Database(db);
  raw.exec(
    'CREATE TABLE __drizzle_migrations (id INTEGER PRIMARY KEY AUTOINCREMENT, hash text NOT NULL, created_at numeric)',
  );
  for (const m of migrations.slice(0, -1)) {
    for (const stmt of m.sql) if (stmt.trim()) raw.exec(stmt);
    raw.prepare('INSERT INTO __drizzle_migrations (hash, created_at) VALUES (?, ?)').run(m.hash, m.folderMillis);
  }
  raw.close();
}

describe('paygate db migrate', () => {
  it('--dry-run on a database that does not exist lists every migration and creates nothing', () => {
    const db = join(t.dir, 'none.db');
    const r = paygate(['--db', db, 'db', 'migrate', '--dry-run']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.json()).toEqual({ database: db, exists: false, pending: ALL });
    expect(existsSync(db)).toBe(false);
  });

  it('--dry-run lists what an older database lacks without applying it; then migrate applies exactly that', () => {
    const db = join(t.dir, 'old.db');
    olderDatabase(db);
    expect(paygate(['--db', db, 'db', 'migrate', '--dry-run']).json().pending).toEqual([LAST]);
    expect(paygate(['--db', db, 'db', 'migrate', '--dry-run']).json().pending).toEqual([LAST]);
    const r = paygate(['--db', db, 'db', 'migrate']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.json()).toEqual({ database: db, applied: [LAST] });
    expect(paygate(['--db', db, 'db', 'migrate', '--dry-run']).json().pending).toEqual([]);
    expect(paygate(['--db', db, 'db', 'migrate']).json().applied).toEqual([]);
  });

  it('refuses a database written by a newer paygate, as a start-up error', () => {
    const db = join(t.dir, 'newer.db');
    expect(paygate(['--db', db, 'merchant', 'list']).status).toBe(0);
    const raw = new Database(db);
    raw.prepare("INSERT INTO __drizzle_migrations (hash, created_at) VALUES ('future', 99999999999999)").run();
    raw.close();
    const r = paygate(['--db', db, 'db', 'migrate', '--dry-run']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/written by a newer version of paygate/);
  });
});

const PG_DRIZZLE = join(DRIZZLE, 'postgres');
const PG_ALL = (
  JSON.parse(readFileSync(join(PG_DRIZZLE, 'meta/_journal.json'), 'utf8')) as { entries: Array<{ tag: string }> }
).entries.map((e) => e.tag);
const PG_LAST = PG_ALL.at(-1) as string;

async function withPg<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

/** drizzle's bookkeeping rows, or -1 when the table does not exist. */
const bookkept = (url: string): Promise<number> =>
  withPg(url, async (c) => {
    const t = await c.query("SELECT to_regclass('drizzle.__drizzle_migrations')::text AS t");
    if (!t.rows[0].t) return -1;
    return Number((await c.query('SELECT count(*) AS n FROM drizzle.__drizzle_migrations')).rows[0].n);
  });

/** A PostgreSQL database as the release before the newest migration left it, applied as src/store/postgres/migrate.ts does. */
async function olderPgDatabase(url: string): Promise<void> {
  const migrations = readMigrationFiles({ migrationsFolder: PG_DRIZZLE });
  await withPg(url, async (c) => {
    await c.query('CREATE SCHEMA drizzle');
    await c.query(
      'CREATE TABLE drizzle.__drizzle_migrations (id SERIAL PRIMARY KEY, hash text NOT NULL, created_at bigint)',
    );
    for (const m of migrations.slice(0, -1)) {
      for (const stmt of m.sql) if (stmt.trim()) await c.query(stmt);
      await c.query('INSERT INTO drizzle.__drizzle_migrations (hash, created_at) VALUES ($1, $2)', [
        m.hash,
        m.folderMillis,
      ]);
    }
  });
}

/** The URL with a password in it: output must show it as ***. */
const withPassword = (url: string): string => {
  const u = new URL(url);
  u.password = 's3cret';
  return u.toString();
};

describe.skipIf(!pgAvailable())('paygate db migrate on PostgreSQL', () => {
  const dbs: PgTestDatabase[] = [];
  afterEach(async () => {
    for (const d of dbs.splice(0)) await d.drop();
  });
  const fresh = async (): Promise<PgTestDatabase> => {
    const d = await createPgDatabase();
    dbs.push(d);
    return d;
  };

  it('--dry-run lists what an older database lacks and changes nothing; then migrate applies exactly that', async () => {
    const { url } = await fresh();
    await olderPgDatabase(url);
    const shown = withPassword(url).replace('s3cret', '***');
    for (let i = 0; i < 2; i++) {
      const dry = paygate(['--db', withPassword(url), 'db', 'migrate', '--dry-run']);
      expect(dry.status, dry.stderr).toBe(0);
      expect(dry.json()).toEqual({ database: shown, exists: true, pending: [PG_LAST] });
      expect(dry.stdout).not.toContain('s3cret');
      expect(await bookkept(url)).toBe(PG_ALL.length - 1);
    }

    const r = paygate(['--db', withPassword(url), 'db', 'migrate']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.json()).toEqual({ database: shown, applied: [PG_LAST] });
    expect(await bookkept(url)).toBe(PG_ALL.length);

    expect(paygate(['--db', url, 'db', 'migrate', '--dry-run']).json().pending).toEqual([]);
    const again = paygate(['--db', url, 'db', 'migrate']);
    expect(again.status, again.stderr).toBe(0);
    expect(again.json().applied).toEqual([]);
  });

  it('on a new empty database: --dry-run lists every migration and creates nothing; migrate applies them all', async () => {
    const { url } = await fresh();
    const dry = paygate(['--db', url, 'db', 'migrate', '--dry-run']);
    expect(dry.status, dry.stderr).toBe(0);
    expect(dry.json()).toEqual({ database: url, exists: true, pending: PG_ALL });
    expect(await bookkept(url)).toBe(-1);
    expect(
      await withPg(url, async (c) => (await c.query("SELECT 1 FROM pg_namespace WHERE nspname = 'drizzle'")).rowCount),
    ).toBe(0);

    const r = paygate(['--db', url, 'db', 'migrate']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.json()).toEqual({ database: url, applied: PG_ALL });
    expect(await bookkept(url)).toBe(PG_ALL.length);
  });

  it('refuses a database migrated by a newer paygate, dry run or not, as a start-up error', async () => {
    const { url } = await fresh();
    expect(paygate(['--db', url, 'db', 'migrate']).status).toBe(0);
    await withPg(url, (c) =>
      c.query("INSERT INTO drizzle.__drizzle_migrations (hash, created_at) VALUES ('future', 99999999999999)"),
    );
    for (const args of [['--dry-run'], []]) {
      const r = paygate(['--db', url, 'db', 'migrate', ...args]);
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(/^error startup: this database was written by a newer version of paygate/);
    }
  });

  it('an unreachable server is a one-line start-up error without the password', () => {
    const r = paygate(['--db', 'postgres://paygate:s3cret@127.0.0.1:1/paygate', 'db', 'migrate', '--dry-run']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(
      /^error startup: cannot open database postgres:\/\/paygate:\*\*\*@127\.0\.0\.1:1\/paygate: /,
    );
    expect(r.stderr).not.toContain('s3cret');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });
});
