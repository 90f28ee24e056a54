import { Database } from '../../src/store/sqlite/driver.js';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyInto } from '../../src/store/copy.js';
import { sqliteCopySource } from '../../src/store/sqlite/copy.js';
import { openSqlite } from '../../src/store/sqlite/client.js';
import { tempDir } from '../helpers/ctx.js';
import { pgAvailable, usePgDatabase } from '../helpers/postgres.js';
import { wtf8 } from '../helpers/wtf8.js';

/**
 * A copy that fails half-way leaves its target as it found it (empty), so it can be run again.
 * The failure is real data: an integer beyond 2^53 in the last table copied, which the copy
 * refuses rather than round.
 */
let dir: string;
let cleanup: () => void;
let bad: string;
let good: string;

function seed(path: string, amount: bigint): void {
  const db = openSqlite(path);
  try {
    db.prepare("INSERT INTO meta (key, value) VALUES ('tz', 'UTC')").run();
    db.prepare(
      "INSERT INTO merchants (id, name, api_key, secret_enc, created_at, updated_at) VALUES ('mer_1', 'Shop', 'ak_1', 'sealed', 1, 1)",
    ).run();
    db.prepare(
      `INSERT INTO sandbox_charges (id, idempotency_key, kind, amount, currency, customer_present, outcome, created_at, updated_at)
       VALUES ('ch_1', 'k1', 'charge', ?, 'USD', 1, 'approved', 1, 1)`,
    )
      .safeIntegers(true)
      .run(amount);
  } finally {
    db.close();
  }
}

async function copyFrom(path: string, target: string): Promise<unknown> {
  const reader = new Database(path, { readonly: true });
  try {
    return await copyInto(sqliteCopySource(reader), target);
  } finally {
    reader.close();
  }
}

beforeAll(() => {
  ({ dir, cleanup } = tempDir());
  bad = join(dir, 'bad.db');
  good = join(dir, 'good.db');
  seed(bad, 2n ** 60n);
  seed(good, 1234n);
});
afterAll(() => cleanup());

describe('a db copy that fails half-way', () => {
  it('refuses an integer it cannot carry exactly, and removes the SQLite file it created', async () => {
    const target = join(dir, 'target.db');
    await expect(copyFrom(bad, target)).rejects.toThrow(
      /sandbox_charges\.amount: the integer 1152921504606846976 is too large to copy exactly/,
    );
    expect(existsSync(target)).toBe(false);
    expect(existsSync(`${target}-wal`)).toBe(false);
  });

  it('empties an existing SQLite target it was filling, which then takes a good copy', async () => {
    const target = join(dir, 'existing.db');
    openSqlite(target).close();
    await expect(copyFrom(bad, target)).rejects.toThrow(/too large/);
    const db = new Database(target, { readonly: true });
    expect(db.prepare('SELECT count(*) AS n FROM merchants').get()).toEqual({ n: 0 });
    expect(db.prepare('SELECT count(*) AS n FROM meta').get()).toEqual({ n: 0 });
    db.close();
    await expect(copyFrom(good, target)).resolves.toMatchObject({ tables: { merchants: 1, sandbox_charges: 1 } });
  });
});

/** Every table and schema of the database that PostgreSQL did not make itself. */
async function pgObjects(url: string): Promise<{ tables: string[]; schemas: string[] }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const tables = await client.query<{ t: string }>(
      `SELECT schemaname || '.' || tablename AS t FROM pg_tables
        WHERE schemaname NOT IN ('pg_catalog', 'information_schema') ORDER BY 1`,
    );
    const schemas = await client.query<{ s: string }>(
      "SELECT nspname AS s FROM pg_namespace WHERE nspname NOT LIKE 'pg\\_%' AND nspname <> 'information_schema' ORDER BY 1",
    );
    return { tables: tables.rows.map((r) => r.t), schemas: schemas.rows.map((r) => r.s) };
  } finally {
    await client.end();
  }
}

async function pgRun(url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

describe.skipIf(!pgAvailable())('a db copy into PostgreSQL that fails half-way', () => {
  const pgDb = usePgDatabase();
  const pgDrizzle = usePgDatabase();
  const pgMigrated = usePgDatabase();

  // It left 19 empty paygate tables and drizzle.__drizzle_migrations in a database that had none.
  it('a database that held none of paygate tables is left as it was: the tables it created are dropped', async () => {
    const before = await pgObjects(pgDb.url);
    await expect(copyFrom(bad, pgDb.url)).rejects.toThrow(/too large/);
    expect(await pgObjects(pgDb.url)).toEqual(before);
    await expect(copyFrom(good, pgDb.url)).resolves.toMatchObject({ tables: { merchants: 1, sandbox_charges: 1 } });
  });

  it('a "drizzle" schema that was there before is kept, and what is in it', async () => {
    await pgRun(pgDrizzle.url, 'CREATE SCHEMA drizzle; CREATE TABLE drizzle.notes (n int)');
    const before = await pgObjects(pgDrizzle.url);
    await expect(copyFrom(bad, pgDrizzle.url)).rejects.toThrow(/too large/);
    expect(await pgObjects(pgDrizzle.url)).toEqual(before);
  });

  it('a database paygate migrated but never used keeps its tables, emptied again; a good copy runs next', async () => {
    await expect(copyFrom(good, pgMigrated.url)).resolves.toBeDefined();
    await pgRun(pgMigrated.url, 'DELETE FROM sandbox_charges; DELETE FROM merchants; DELETE FROM meta');
    const migrated = await pgObjects(pgMigrated.url);
    expect(migrated.tables).toContain('drizzle.__drizzle_migrations');
    await expect(copyFrom(bad, pgMigrated.url)).rejects.toThrow(/too large/);
    expect(await pgObjects(pgMigrated.url)).toEqual(migrated);
    const client = new pg.Client({ connectionString: pgMigrated.url });
    await client.connect();
    try {
      const n = await client.query('SELECT (SELECT count(*) FROM merchants) + (SELECT count(*) FROM meta) AS n');
      expect(Number(n.rows[0].n)).toBe(0);
    } finally {
      await client.end();
    }
    await expect(copyFrom(good, pgMigrated.url)).resolves.toMatchObject({
      tables: { merchants: 1, sandbox_charges: 1 },
    });
  });
});

/**
 * SPEC §3: a database an older version wrote may hold text the other engine cannot store — a lone
 * surrogate better-sqlite3 stored as the bytes ED A0 80 (read back as U+FFFD, so two different
 * ids read alike), or U+0000. The bytes are written as such (a blob cast to text), the way the
 * driver of that version wrote them: today's driver on Node 24 would turn a lone surrogate into
 * U+FFFD before SQLite sees it.
 */
function oldTextDatabase(path: string, relationIds: string[], merchantName = 'Shop'): void {
  const db = openSqlite(path);
  try {
    db.prepare("INSERT INTO meta (key, value) VALUES ('tz', 'UTC')").run();
    db.prepare(
      "INSERT INTO merchants (id, name, api_key, secret_enc, created_at, updated_at) VALUES ('mer_1', CAST(? AS TEXT), 'ak_1', 'sealed', 1, 1)",
    ).run(wtf8(merchantName));
    const insert = db.prepare(
      `INSERT INTO transactions (id, merchant_id, relation_id, payment_type, status, amount, currency, created_at, updated_at)
       VALUES (?, 'mer_1', CAST(? AS TEXT), 'PAY', 200000, 100, 'USD', 1, 1)`,
    );
    for (const [i, relationId] of relationIds.entries()) insert.run(`txn_${i + 1}`, wtf8(relationId));
  } finally {
    db.close();
  }
}

describe('a db copy meeting text the target cannot store', () => {
  const textSource = (name: string, relationIds: string[], merchantName?: string): string => {
    const path = join(dir, name);
    oldTextDatabase(path, relationIds, merchantName);
    return path;
  };

  it('names the table, row and column of a lone surrogate stored as bytes, and copies nothing', async () => {
    const source = textSource('surrogate.db', ['order-1', 'order-\ud800-1', 'order-\udfff-1']);
    const target = join(dir, 'surrogate-copy.db');
    await expect(copyFrom(source, target)).rejects.toMatchObject({
      code: '1008',
      message: expect.stringMatching(
        /^db copy stopped: table transactions, row id=txn_2, column relation_id holds a lone surrogate stored as the bytes ED A0 80, which is not valid UTF-8; nothing was copied/,
      ),
    });
    expect(existsSync(target)).toBe(false);
  });

  it('copies U+0000 into SQLite, which stores it', async () => {
    const source = textSource('nul.db', ['order-1'], 'Shop\u0000Two');
    await expect(copyFrom(source, join(dir, 'nul-copy.db'))).resolves.toMatchObject({ tables: { merchants: 1 } });
  });

  it('copies a real U+FFFD as it is', async () => {
    const source = textSource('replacement.db', ['order-\ufffd-1', 'order-\ufffd\ufffd-1']);
    await expect(copyFrom(source, join(dir, 'replacement-copy.db'))).resolves.toMatchObject({
      tables: { transactions: 2 },
    });
  });
});

describe.skipIf(!pgAvailable())('a db copy into PostgreSQL meeting text it cannot store', () => {
  const pgDb = usePgDatabase();

  it('names the row instead of failing on the unique key the repaired ids would share, and leaves the target as it was', async () => {
    const source = join(dir, 'surrogate-pg.db');
    oldTextDatabase(source, ['order-\ud800-1', 'order-\udfff-1']);
    const before = await pgObjects(pgDb.url);
    await expect(copyFrom(source, pgDb.url)).rejects.toMatchObject({
      code: '1008',
      message: expect.stringMatching(
        /^db copy stopped: table transactions, row id=txn_1, column relation_id holds a lone surrogate/,
      ),
    });
    expect(await pgObjects(pgDb.url)).toEqual(before);
  });

  it('names a value holding U+0000, which PostgreSQL text cannot store', async () => {
    const source = join(dir, 'nul-pg.db');
    oldTextDatabase(source, ['order-1'], 'Shop\u0000Two');
    await expect(copyFrom(source, pgDb.url)).rejects.toThrow(
      /^db copy stopped: table merchants, row id=mer_1, column name holds the NUL character/,
    );
  });
});
