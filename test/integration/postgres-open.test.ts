import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { getTableConfig as pgTableConfig, PgTable } from 'drizzle-orm/pg-core';
import { getTableConfig as sqliteTableConfig, SQLiteTable } from 'drizzle-orm/sqlite-core';
import { readMigrationFiles } from 'drizzle-orm/migrator';
import { drizzle } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { openSqlite } from '../../src/store/sqlite/client.js';
import { StoreOpenError } from '../../src/store/store.js';
import { DEFAULT_POOL_SIZE, openPgStore, parsePoolSize, type PgStore } from '../../src/store/postgres/client.js';
import { MIGRATIONS_FOLDER, NEWER_SCHEMA_MESSAGE } from '../../src/store/postgres/migrate.js';
import * as pgSchema from '../../src/store/schema/postgres.js';
import * as sqliteSchema from '../../src/store/schema/sqlite.js';
import { TABLES } from '../../src/store/tables/index.js';
import { tempDir } from '../helpers/ctx.js';
import { createPgDatabase, pgAvailable, type PgTestDatabase } from '../helpers/postgres.js';

const ROOT = resolve(import.meta.dirname, '../..');
const MIGRATION_COUNT = readMigrationFiles({ migrationsFolder: MIGRATIONS_FOLDER }).length;

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function freshDb(): Promise<PgTestDatabase> {
  const db = await createPgDatabase();
  cleanups.push(() => db.drop());
  return db;
}

async function open(url: string, opts: Parameters<typeof openPgStore>[1] = {}): Promise<PgStore> {
  const store = await openPgStore(url, { env: {}, ...opts });
  cleanups.push(() => store.close());
  return store;
}

async function rows<T extends pg.QueryResultRow>(url: string, text: string, params: unknown[] = []): Promise<T[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query<T>(text, params)).rows;
  } finally {
    await c.end();
  }
}

const pgTables = Object.values(pgSchema)
  .filter((t) => t instanceof PgTable)
  .map((t) => pgTableConfig(t as PgTable));
const sqliteTables = Object.values(sqliteSchema)
  .filter((t) => t instanceof SQLiteTable)
  .map((t) => sqliteTableConfig(t as SQLiteTable));

describe('the PostgreSQL schema mirrors the SQLite one', () => {
  it('has every SQLite table, with the same columns, nullability, unique columns and indexes', () => {
    const byName = new Map(pgTables.map((t) => [t.name, t]));
    for (const s of sqliteTables) {
      const p = byName.get(s.name);
      expect(p, `table ${s.name}`).toBeDefined();
      if (!p) continue;
      const cols = (cs: { name: string; notNull: boolean; isUnique: boolean; primary: boolean }[]) =>
        cs
          .map((c) => ({ name: c.name, notNull: c.notNull, unique: c.isUnique, primary: c.primary }))
          .sort((a, b) => a.name.localeCompare(b.name));
      expect(cols(p.columns), `columns of ${s.name}`).toEqual(cols(s.columns));
      const idx = (is: { config: { name?: string; unique: boolean; where?: unknown; columns: unknown[] } }[]) =>
        is
          .map((i) => ({
            name: i.config.name,
            unique: i.config.unique,
            partial: i.config.where !== undefined,
            width: i.config.columns.length,
          }))
          .sort((a, b) => String(a.name).localeCompare(String(b.name)));
      expect(idx(p.indexes), `indexes of ${s.name}`).toEqual(idx(s.indexes));
      expect(
        p.primaryKeys.map((k) => k.columns.map((c) => c.name)),
        `primary key of ${s.name}`,
      ).toEqual(s.primaryKeys.map((k) => k.columns.map((c) => c.name)));
      // A key to a hot parent (`hotParent()`: the merchant every payment names) is SQLite's only.
      const hot = Object.values(TABLES.find((t) => t.name === s.name)?.columns ?? {}).filter(
        (c) => c.spec.references?.onPostgres === false,
      ).length;
      expect(p.foreignKeys.length, `foreign keys of ${s.name}`).toBe(s.foreignKeys.length - hot);
    }
    expect(
      TABLES.flatMap((t) =>
        Object.entries(t.columns)
          .filter(([, c]) => c.spec.references?.onPostgres === false)
          .map(([k]) => `${t.name}.${k}`),
      ),
    ).toEqual(['transactions.merchantId', 'invoices.merchantId']);
    // The one PostgreSQL-only table: rate limits shared by every instance.
    expect(pgTables.map((t) => t.name).filter((n) => !sqliteTables.some((s) => s.name === n))).toEqual([
      'rate_limit_windows',
    ]);
  });
});

describe.skipIf(!pgAvailable())('opening a PostgreSQL database', () => {
  it('creates every table, column and partial index on a fresh database', async () => {
    const { url } = await freshDb();
    await open(url);
    const tables = await rows<{ table_name: string }>(
      url,
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'",
    );
    expect(tables.map((r) => r.table_name).sort()).toEqual(pgTables.map((t) => t.name).sort());
    for (const t of pgTables) {
      const cols = await rows<{ column_name: string; data_type: string }>(
        url,
        "SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = 'public' AND table_name = $1",
        [t.name],
      );
      expect(cols.map((c) => c.column_name).sort(), t.name).toEqual(t.columns.map((c) => c.name).sort());
    }
    const money = await rows<{ data_type: string }>(
      url,
      "SELECT data_type FROM information_schema.columns WHERE table_name = 'transactions' AND column_name IN ('amount', 'refunded_amount', 'created_at')",
    );
    expect(money.map((c) => c.data_type)).toEqual(['bigint', 'bigint', 'bigint']);
    const partial = await rows<{ indexname: string; indexdef: string }>(
      url,
      "SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' AND indexdef LIKE '% WHERE %' ORDER BY indexname",
    );
    expect(partial.map((i) => i.indexname)).toEqual([
      'billing_records_due',
      'customer_emails_due',
      'outbox_due',
      'outbox_subscription',
      'refunds_channel_ref',
      'refunds_pending',
      'subscriptions_card_update_token',
      'transactions_card_checks',
      'transactions_in_flight',
      'transactions_open_pages',
      'transactions_page_token',
      'transactions_stripe_ref',
      'transactions_unrecorded',
    ]);
    expect(partial.find((i) => i.indexname === 'transactions_page_token')?.indexdef).toMatch(/^CREATE UNIQUE INDEX/);
    const applied = await rows<{ n: number }>(url, 'SELECT count(*)::int AS n FROM drizzle.__drizzle_migrations');
    expect(applied).toEqual([{ n: MIGRATION_COUNT }]);
  });

  it('opens an already migrated database without migrating again', async () => {
    const { url } = await freshDb();
    await (await openPgStore(url, { env: {} })).close();
    await open(url);
    expect(await rows(url, 'SELECT count(*)::int AS n FROM drizzle.__drizzle_migrations')).toEqual([
      { n: MIGRATION_COUNT },
    ]);
  });

  it('reads money and instants back as whole numbers', async () => {
    const { url } = await freshDb();
    const store = await open(url);
    // drizzle over the store's pool: the schema drizzle-kit generates from agrees with the database.
    const db = drizzle(store.pool, { schema: pgSchema });
    await db.insert(pgSchema.merchants).values({
      id: 'm1',
      name: 'Shop',
      apiKey: 'k1',
      secretEnc: 'x',
      createdAt: 1_795_000_000_123,
      updatedAt: 1_795_000_000_123,
    });
    const [m] = await db.select().from(pgSchema.merchants);
    expect(m?.createdAt).toBe(1_795_000_000_123);
    const raw = await store.pool.query<{ n: unknown }>('SELECT count(*) AS n FROM merchants');
    expect(raw.rows[0]?.n).toBe(1);
  });

  it('runs every connection with synchronous_commit=on, whatever the database default', async () => {
    const { url, name } = await freshDb();
    await rows(url, `ALTER DATABASE ${name} SET synchronous_commit = off`);
    expect(await rows(url, 'SHOW synchronous_commit')).toEqual([{ synchronous_commit: 'off' }]);
    const store = await open(url, { poolSize: 3 });
    const clients = await Promise.all([store.pool.connect(), store.pool.connect(), store.pool.connect()]);
    try {
      for (const c of clients)
        expect((await c.query('SHOW synchronous_commit')).rows).toEqual([{ synchronous_commit: 'on' }]);
    } finally {
      for (const c of clients) c.release();
    }
  });

  it('has four processes opening one fresh database at once migrate it exactly once', async () => {
    const client = join(ROOT, 'dist/store/postgres/client.js');
    expect(existsSync(client), 'run `npm run build` first: the processes load dist/').toBe(true);
    const { url } = await freshDb();
    const script = `
      const { openPgStore } = await import(${JSON.stringify(client)});
      const store = await openPgStore(process.env.DB_URL, { env: {} });
      const r = await store.pool.query("SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema = 'public'");
      console.log(r.rows[0].n);
      await store.close();`;
    const runs = await Promise.all(
      [1, 2, 3, 4].map(
        () =>
          new Promise<{ code: number | null; out: string }>((done) => {
            const p = spawn(process.execPath, ['--input-type=module', '-e', script], {
              env: { PATH: process.env.PATH, DB_URL: url },
              stdio: ['ignore', 'pipe', 'pipe'],
            });
            let out = '';
            p.stdout.on('data', (d: Buffer) => (out += d.toString()));
            p.stderr.on('data', (d: Buffer) => (out += d.toString()));
            p.on('exit', (code) => done({ code, out }));
          }),
      ),
    );
    for (const r of runs) expect(r, r.out).toEqual({ code: 0, out: `${pgTables.length}\n` });
    expect(await rows(url, 'SELECT count(*)::int AS n FROM drizzle.__drizzle_migrations')).toEqual([
      { n: MIGRATION_COUNT },
    ]);
  });

  it('refuses a database written by a newer schema, with the same message as SQLite', async () => {
    const { url } = await freshDb();
    await (await openPgStore(url, { env: {} })).close();
    await rows(url, "INSERT INTO drizzle.__drizzle_migrations (hash, created_at) VALUES ('future', 9999999999999)");
    const pgError = await openPgStore(url, { env: {} }).then(
      (s) => s.close().then(() => undefined),
      (e: unknown) => e,
    );
    expect(pgError).toBeInstanceOf(StoreOpenError);
    expect((pgError as Error).message).toBe(NEWER_SCHEMA_MESSAGE);

    const dir = tempDir();
    cleanups.push(dir.cleanup);
    const path = join(dir.dir, 'a.db');
    const sqlite = openSqlite(path);
    sqlite
      .prepare('INSERT INTO __drizzle_migrations (hash, created_at) VALUES (?, ?)')
      .run('future', 9_999_999_999_999);
    sqlite.close();
    expect(() => openSqlite(path)).toThrowError(new StoreOpenError(NEWER_SCHEMA_MESSAGE));
  });

  it('refuses what is not a PostgreSQL URL, and never shows the password of one it cannot reach', async () => {
    await expect(openPgStore('mysql://u@127.0.0.1/x', { env: {} })).rejects.toThrowError(/not a PostgreSQL URL/);
    const closed = await new Promise<number>((done) => {
      const srv = createServer();
      srv.listen(0, '127.0.0.1', () => {
        const addr = srv.address();
        srv.close(() => done(typeof addr === 'object' && addr ? addr.port : 0));
      });
    });
    const e = await openPgStore(`postgresql://paygate:s3cr3t-pw@127.0.0.1:${closed}/shop`, { env: {} }).catch(
      (x: Error) => x,
    );
    expect(e).toBeInstanceOf(StoreOpenError);
    expect((e as Error).message).toMatch(
      /^cannot open database postgresql:\/\/paygate:\*\*\*@127\.0\.0\.1:\d+\/shop: /,
    );
    expect((e as Error).message).not.toContain('s3cr3t-pw');
  });
});

describe.skipIf(!pgAvailable())('the connection pool', () => {
  it(`holds ${DEFAULT_POOL_SIZE} connections by default and PAYGATE_DB_POOL of them when set`, async () => {
    const { url } = await freshDb();
    const byDefault = await open(url);
    expect([byDefault.poolSize, byDefault.pool.options.max]).toEqual([DEFAULT_POOL_SIZE, DEFAULT_POOL_SIZE]);
    await byDefault.close();

    const store = await open(url, { env: { PAYGATE_DB_POOL: '3' } });
    expect(store.poolSize).toBe(3);
    // Three connections checked out: a fourth caller waits, and the server sees exactly three.
    const held = await Promise.all([store.pool.connect(), store.pool.connect(), store.pool.connect()]);
    const fourth = store.pool.connect();
    await new Promise((r) => setTimeout(r, 50));
    expect(store.pool.waitingCount).toBe(1);
    const seen = await rows<{ n: number }>(
      url,
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'paygate'",
    );
    expect(seen).toEqual([{ n: 3 }]);
    held[0]?.release();
    (await fourth).release();
    for (const c of held.slice(1)) c.release();
  });

  it('refuses a PAYGATE_DB_POOL that is not a whole number from 1 to 1000', () => {
    for (const bad of ['0', '-1', 'ten', '2.5', '1001', '10 connections']) {
      expect(() => parsePoolSize(bad), bad).toThrowError(
        /PAYGATE_DB_POOL: must be a whole number of connections from 1 to 1000/,
      );
    }
    expect(parsePoolSize(undefined)).toBe(DEFAULT_POOL_SIZE);
    expect(parsePoolSize(' 25 ')).toBe(25);
  });
});
