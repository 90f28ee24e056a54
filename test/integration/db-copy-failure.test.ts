import Database from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyInto } from '../../src/store/copy.js';
import { sqliteCopySource } from '../../src/store/sqlite/copy.js';
import { openSqlite } from '../../src/store/sqlite/client.js';
import { tempDir } from '../helpers/ctx.js';
import { pgAvailable, usePgDatabase } from '../helpers/postgres.js';

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

describe.skipIf(!pgAvailable())('a db copy into PostgreSQL that fails half-way', () => {
  const pgDb = usePgDatabase();

  it('leaves the PostgreSQL tables empty again, so a good copy runs next', async () => {
    await expect(copyFrom(bad, pgDb.url)).rejects.toThrow(/too large/);
    const client = new pg.Client({ connectionString: pgDb.url });
    await client.connect();
    try {
      const n = await client.query('SELECT (SELECT count(*) FROM merchants) + (SELECT count(*) FROM meta) AS n');
      expect(Number(n.rows[0].n)).toBe(0);
    } finally {
      await client.end();
    }
    await expect(copyFrom(good, pgDb.url)).resolves.toMatchObject({ tables: { merchants: 1, sandbox_charges: 1 } });
  });
});
