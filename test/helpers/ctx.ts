import { join } from 'node:path';
import type { Database } from '../../src/store/sqlite/driver.js';
import { openApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import type { Ctx } from '../../src/ctx.js';
import { SqliteStore } from '../../src/store/sqlite/index.js';
import { FixedClock } from '../../src/domain/clock.js';
import { createMerchant } from '../../src/services/merchants.js';
import pg from 'pg';
import { createPgDatabase, type PgTestDatabase } from './postgres.js';
import { TEST_ENGINE, TEST_NOW, TEST_VAULT_KEY, tempDir, type TestEngine } from './env.js';

export { CLOSED_NOTIFY_URL, TEST_ENGINE, TEST_NOW, TEST_VAULT_KEY, tempDir, type TestEngine } from './env.js';

/** For tests that read or arrange rows through the SQLite connection (`sqliteOf`): they run on SQLite only. */
export const onPostgres = TEST_ENGINE === 'postgres';

export interface TestApp {
  ctx: Ctx;
  clock: FixedClock;
  dir: string;
  dbPath: string;
  close: () => Promise<void>;
}

/**
 * A real migrated database with a settable clock: a SQLite file in a temp dir, or (engine
 * 'postgres', the default under PAYGATE_TEST_ENGINE=postgres) a fresh database of its own on the
 * run's PostgreSQL cluster, dropped on close. `dbPath` is then its URL.
 */
export async function testApp(
  opts: { zone?: string; now?: number; env?: NodeJS.ProcessEnv; engine?: TestEngine } = {},
): Promise<TestApp> {
  const { dir, cleanup } = tempDir();
  const pgDb = (opts.engine ?? TEST_ENGINE) === 'postgres' ? await takePgDatabase() : undefined;
  const dbPath = pgDb ? pgDb.url : join(dir, 'paygate.db');
  const clock = new FixedClock(opts.now ?? TEST_NOW);
  const config = loadConfig(
    { db: dbPath, tz: opts.zone ?? 'UTC' },
    { PAYGATE_VAULT_KEY: TEST_VAULT_KEY, PAYGATE_DB_POOL: '4', ...opts.env },
  );
  let ctx: Ctx;
  try {
    ctx = await openApp(config, { clock });
  } catch (e) {
    await pgDb?.drop();
    cleanup();
    throw e;
  }
  return {
    ctx,
    clock,
    dir,
    dbPath,
    close: async () => {
      await ctx.close();
      if (pgDb) await giveBack(pgDb);
      cleanup();
    },
  };
}

/**
 * PostgreSQL databases of this test process, emptied and handed out again: creating a database
 * costs more than most tests, emptying one (TRUNCATE, migrations kept) a few milliseconds. Those
 * left at the end go with the run's cluster.
 */
const freePgDatabases: PgTestDatabase[] = [];

async function takePgDatabase(): Promise<PgTestDatabase> {
  return freePgDatabases.pop() ?? (await createPgDatabase());
}

async function giveBack(db: PgTestDatabase): Promise<void> {
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  try {
    const r = await client.query<{ t: string | null }>(
      "SELECT string_agg(quote_ident(tablename), ', ') AS t FROM pg_tables WHERE schemaname = 'public'",
    );
    if (r.rows[0]?.t) await client.query(`TRUNCATE ${r.rows[0].t} RESTART IDENTITY CASCADE`);
  } finally {
    await client.end();
  }
  freePgDatabases.push(db);
}

/**
 * The SQLite engine's writer connection, for tests that inspect or arrange rows directly (the
 * product itself never reaches past the store boundary).
 */
export function sqliteOf(ctx: Ctx): Database {
  if (!(ctx.store instanceof SqliteStore)) throw new Error('this test inspects SQLite rows');
  return ctx.store.connection;
}

export function testMerchant(ctx: Ctx, input: Record<string, unknown> = {}) {
  return createMerchant(ctx, { name: 'Test Shop', ...input });
}
