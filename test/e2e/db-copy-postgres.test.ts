import { join } from 'node:path';
import { Database } from '../../src/store/sqlite/driver.js';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COPY_TABLES, copyInto } from '../../src/store/copy.js';
import { openPgStore } from '../../src/store/postgres/client.js';
import { pgCopySource } from '../../src/store/postgres/copy.js';
import { sqliteCopySource } from '../../src/store/sqlite/copy.js';
import type { CopyProgress } from '../../src/store/store.js';
import { paygate } from '../helpers/cli.js';
import { tempDir } from '../helpers/env.js';
import { wtf8 } from '../helpers/wtf8.js';
import { interruptWhen } from '../helpers/interrupt.js';
import { bigDatabase, populate, sqliteTables, type Populated } from '../helpers/populated-db.js';
import { createPgDatabase, pgAvailable, usePgDatabase } from '../helpers/postgres.js';

type Row = Record<string, unknown>;

/** Rows in one order whichever engine gave them: by primary key, compared as JS values. */
function byKey(table: string, rows: Row[]): Row[] {
  const key = COPY_TABLES.find((t) => t.name === table)?.key ?? [];
  const cmp = (a: unknown, b: unknown): number =>
    a === b ? 0 : (a as string | number) < (b as string | number) ? -1 : 1;
  return [...rows].sort((x, y) => key.reduce((r, k) => r || cmp(x[k], y[k]), 0));
}

function sorted(tables: Record<string, unknown[]>): Record<string, Row[]> {
  return Object.fromEntries(Object.entries(tables).map(([t, rows]) => [t, byKey(t, rows as Row[])]));
}

/** Every copied table read with `pg` directly, values in SQLite's shapes (int8 → number, boolean → 0/1). */
async function pgTables(url: string): Promise<Record<string, Row[]>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const out: Record<string, Row[]> = {};
    for (const t of COPY_TABLES) {
      const r = await client.query(`SELECT * FROM "${t.name}"`);
      const rows = r.rows.map((row: Row) =>
        Object.fromEntries(
          t.columns.map((c) => {
            const v = row[c.name];
            if (v === null) return [c.name, null];
            if (c.type === 'boolean') return [c.name, v ? 1 : 0];
            if (c.type === 'integer') return [c.name, Number(v)];
            return [c.name, v];
          }),
        ),
      );
      out[t.name] = byKey(t.name, rows);
    }
    return out;
  } finally {
    await client.end();
  }
}

describe.skipIf(!pgAvailable())('paygate db copy: SQLite → PostgreSQL → SQLite', () => {
  const pgDb = usePgDatabase();
  let dir: string;
  // Undefined when an earlier hook failed (no cluster): the afterAll must not add an error of its own.
  let cleanup: (() => void) | undefined;
  let source: string;
  let shop: Populated;

  beforeAll(() => {
    ({ dir, cleanup } = tempDir());
    source = join(dir, 'source.db');
    shop = populate(source);
  }, 120_000);
  afterAll(() => cleanup?.());

  it('copies every table into an empty PostgreSQL database, equal row by row (read with pg)', async () => {
    const r = paygate(['--db', source, 'db', 'copy', '--to', pgDb.url, '--json']);
    expect(r.stderr).not.toMatch(/error/);
    expect(r.status).toBe(0);
    const want = sorted(sqliteTables(source));
    expect(r.json()).toEqual({ tables: Object.fromEntries(Object.entries(want).map(([t, rows]) => [t, rows.length])) });
    expect(await pgTables(pgDb.url)).toEqual(want);
  });

  it('a PostgreSQL database that holds rows is refused with 1001 and nothing written', async () => {
    const before = await pgTables(pgDb.url);
    const r = paygate(['--db', source, 'db', 'copy', '--to', pgDb.url]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^error 1001: to: postgres:\/\/.* is not empty \(meta: \d+, merchants: 2, /);
    expect(await pgTables(pgDb.url)).toEqual(before);
  });

  it("a PostgreSQL database holding another application's table where paygate's would go is refused with 1001, nothing created", async () => {
    const foreign = await createPgDatabase();
    try {
      const client = new pg.Client({ connectionString: foreign.url });
      await client.connect();
      try {
        await client.query('CREATE TABLE foo (x int); INSERT INTO foo VALUES (1), (2)');
        const r = paygate(['--db', source, 'db', 'copy', '--to', foreign.url]);
        expect(r.status).toBe(1);
        expect(r.stderr.trim().split('\n')).toEqual([
          expect.stringMatching(
            /^error 1001: to: postgres:\/\/.* is not empty \(tables that are not paygate's: foo\); db copy only fills an empty database$/,
          ),
        ]);
        // Not migrated: foo is still the only table, and drizzle's bookkeeping was never created.
        const tables = await client.query(
          "SELECT table_schema || '.' || table_name AS t FROM information_schema.tables WHERE table_schema NOT IN ('pg_catalog', 'information_schema')",
        );
        expect(tables.rows.map((row) => row.t)).toEqual(['public.foo']);
        expect((await client.query("SELECT 1 FROM pg_namespace WHERE nspname = 'drizzle'")).rowCount).toBe(0);
      } finally {
        await client.end();
      }
    } finally {
      await foreign.drop();
    }
  });

  it('copied back into a new SQLite file, every table equals the original, and the copy answers the CLI', async () => {
    const back = join(dir, 'back.db');
    const store = await openPgStore(pgDb.url);
    try {
      const summary = await copyInto(await pgCopySource(store.pool), back);
      expect(summary.tables.outbox_events).toBeGreaterThan(0);
    } finally {
      await store.close();
    }
    expect(sqliteTables(back)).toEqual(sqliteTables(source));
    const show = paygate(['--db', back, 'sub', 'show', shop.subscriptionCode, '--json']);
    expect(show.status).toBe(0);
    expect(show.json()).toEqual(paygate(['--db', source, 'sub', 'show', shop.subscriptionCode, '--json']).json());
  });

  it('in batches of 2 rows (keys continued across batches, composite ones too) both ways, with progress up to the total', async () => {
    const middle = await createPgDatabase();
    const back = join(dir, 'batched.db');
    try {
      const seen: CopyProgress[] = [];
      const reader = new Database(source, { readonly: true });
      try {
        await copyInto(sqliteCopySource(reader), middle.url, (p) => seen.push(p), { batch: 2 });
      } finally {
        reader.close();
      }
      const total = Object.values(sqliteTables(source)).reduce((a, rows) => a + rows.length, 0);
      expect(seen.at(-1)).toMatchObject({ copied: total, total });
      expect(seen.length).toBeGreaterThan(total / 2);
      expect(seen.map((p) => p.copied)).toEqual([...seen.map((p) => p.copied)].sort((a, b) => a - b));
      const store = await openPgStore(middle.url);
      try {
        await copyInto(await pgCopySource(store.pool), back, undefined, { batch: 2 });
      } finally {
        await store.close();
      }
      expect(sqliteTables(back)).toEqual(sqliteTables(source));
    } finally {
      await middle.drop();
    }
  });

  it("PostgreSQL's numbering of callback events and customer emails continues after the largest copied seq", async () => {
    const client = new pg.Client({ connectionString: pgDb.url });
    await client.connect();
    try {
      const next = async (table: string, insert: string): Promise<[number, number]> => {
        const max = Number((await client.query(`SELECT max(seq) AS m FROM ${table}`)).rows[0].m);
        expect(max, table).toBeGreaterThan(0);
        return [Number((await client.query(insert, [shop.merchantId])).rows[0].seq), max + 1];
      };
      const [event, afterEvents] = await next(
        'outbox_events',
        `INSERT INTO outbox_events (id, merchant_id, kind, event_type, payload, next_attempt_at, created_at)
         VALUES ('evt_after_copy', $1, 'PAYMENT', 'PAYMENT', '{}', 0, 0) RETURNING seq`,
      );
      expect(event).toBe(afterEvents);
      // Before, the emails' identity started again at 1: the next email clashed and was dropped unseen.
      const [email, afterEmails] = await next(
        'customer_emails',
        `INSERT INTO customer_emails (id, merchant_id, kind, recipient, details, next_attempt_at, created_at)
         VALUES ('eml_after_copy', $1, 'receipt', 'bob@example.com', '{}', 0, 0) RETURNING seq`,
      );
      expect(email).toBe(afterEmails);
    } finally {
      await client.end();
    }
  });
});

describe.skipIf(!pgAvailable())('paygate db copy of text an older version stored (SPEC §3)', () => {
  it('two relationIds with lone surrogates: a one-line error naming table, row and column, never 9999, nothing copied', async () => {
    const { dir, cleanup } = tempDir();
    const target = await createPgDatabase();
    try {
      const source = join(dir, 'old.db');
      const m = paygate(['--db', source, '--json', 'merchant', 'create', '--name', 'Old Shop']);
      expect(m.status).toBe(0);
      const merchantId = m.json().merchantId as string;
      // What an older version wrote for "order-\ud800-1" and "order-\udfff-1": the bytes ED A0 80 and ED BF BF.
      const db = new Database(source);
      const insert = db.prepare(
        `INSERT INTO transactions (id, merchant_id, relation_id, payment_type, status, amount, currency, created_at, updated_at)
         VALUES (?, ?, CAST(? AS TEXT), 'PAY', 200000, 100, 'USD', 1, 1)`,
      );
      insert.run('txn_old_1', merchantId, wtf8('order-\ud800-1'));
      insert.run('txn_old_2', merchantId, wtf8('order-\udfff-1'));
      db.close();

      const r = paygate(['--db', source, 'db', 'copy', '--to', target.url]);
      expect(r.status).toBe(1);
      expect(r.stderr.trim().split('\n')).toEqual([
        expect.stringMatching(
          /^error 1008: db copy stopped: table transactions, row id=txn_old_1, column relation_id holds a lone surrogate stored as the bytes ED A0 80/,
        ),
      ]);
      // A new database: the tables the copy created are dropped again.
      expect(await userTables(target.url)).toEqual([]);
    } finally {
      await target.drop();
      cleanup();
    }
  });
});

/** Rows of sandbox_charges in the PostgreSQL database at `url` now (0 before the copy created the table). */
async function pgLedgerRows(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const r = await client.query("SELECT CASE WHEN to_regclass('sandbox_charges') IS NULL THEN 0 ELSE 1 END AS t");
    if (Number(r.rows[0].t) === 0) return 0;
    return Number((await client.query('SELECT count(*) AS n FROM sandbox_charges')).rows[0].n);
  } finally {
    await client.end();
  }
}

/** Tables in any schema PostgreSQL did not make itself (paygate's, drizzle's bookkeeping). */
async function userTables(url: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const r = await client.query<{ t: string }>(
      "SELECT schemaname || '.' || tablename AS t FROM pg_tables WHERE schemaname NOT IN ('pg_catalog', 'information_schema')",
    );
    return r.rows.map((row) => row.t);
  } finally {
    await client.end();
  }
}

describe.skipIf(!pgAvailable())('an interrupted db copy into PostgreSQL', () => {
  it('SIGINT mid-copy: the database is as it was (the tables the copy created dropped), exit 130 with one line; copying again works', async () => {
    const { dir, cleanup } = tempDir();
    const target = await createPgDatabase();
    try {
      const big = join(dir, 'big.db');
      bigDatabase(big, 200_000);
      const r = await interruptWhen(['--db', big, 'db', 'copy', '--to', target.url], 'SIGINT', () =>
        pgLedgerRows(target.url),
      );
      expect(r.seen).toBeGreaterThan(0);
      expect(r.status, r.stderr).toBe(130);
      expect(r.stderr).toMatch(
        /^db copy interrupted: nothing was copied \(postgres:\/\/\S+ is as it was: the tables the copy created were dropped\)\n$/,
      );
      expect(await userTables(target.url)).toEqual([]);

      const again = paygate(['--db', big, 'db', 'copy', '--to', target.url, '--json']);
      expect(again.status, again.stderr).toBe(0);
      expect(again.json().tables.sandbox_charges).toBe(200_000);
    } finally {
      await target.drop();
      cleanup();
    }
  }, 180_000);
});
