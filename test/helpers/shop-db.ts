import { copyFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Database } from '../../src/store/sqlite/driver.js';
import pg from 'pg';
import { TEST_ENGINE, tempDir, type TestEngine } from './env.js';
import { createPgDatabase } from './postgres.js';

/**
 * A fresh database for tests that drive the real `paygate` processes (CLI, serve) rather than
 * the services in-process: a SQLite file in a temp dir, or on PostgreSQL a new database of the
 * run's cluster. The engine defaults to PAYGATE_TEST_ENGINE (vitest.config.ts runs the e2e
 * suites once per engine).
 */
export interface ShopDatabase {
  readonly engine: TestEngine;
  /** What `--db` and PAYGATE_DB take: the SQLite file's path or the database's postgres:// URL. */
  readonly db: string;
  /** A temp directory of the test's own (certificates, exports, other files), removed on drop. */
  readonly dir: string;
  /** Rows as another process sees them, read through a connection opened per call. */
  readonly rows: RowReader;
  /** Removes the database (and the temp dir); call after every process on it has stopped. */
  drop(): Promise<void>;
}

/** SQL with `?` placeholders, portable across both engines; int8 values read as numbers. */
export interface RowReader {
  all<T = Record<string, unknown>>(sql: string, ...args: unknown[]): Promise<T[]>;
  get<T = Record<string, unknown>>(sql: string, ...args: unknown[]): Promise<T | undefined>;
  /**
   * One write, as an older version or an operator would have left a row (arranging a case the
   * product cannot reach on its own); through a connection opened per call.
   */
  run(sql: string, ...args: unknown[]): Promise<void>;
  /** Row count of a table. */
  count(table: string): Promise<number>;
  /** Names of the database's own tables (the schema's, migration bookkeeping included). */
  tables(): Promise<string[]>;
  /**
   * The bytes the engine keeps on disk for this database, for checks that nothing lingers
   * unseen in them. SQLite: the file and its -wal. PostgreSQL (after a CHECKPOINT, read as the
   * superuser the test URLs connect as): the main fork of every table, TOAST table and index
   * of the database outside the system catalogs, and the cluster's WAL segments written since
   * `since` (which also hold whatever was written to a catalog since then).
   */
  rawFiles(since?: Date): Promise<Array<{ name: string; bytes: Buffer }>>;
  /**
   * The engine's own consistency check: 'ok', or what it found. SQLite: PRAGMA integrity_check;
   * PostgreSQL: amcheck's bt_index_check over every index of the database (tables against their
   * indexes, heapallindexed), which raises on the first inconsistency.
   */
  integrity(): Promise<string>;
}

const INT8 = 20;
const builtinParser = pg.types.getTypeParser as unknown as (
  oid: number,
  format: 'text' | 'binary',
) => (v: string) => unknown;
const numberInt8: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8
      ? (v: string) => Number(v)
      : builtinParser(oid, format ?? 'text')) as pg.CustomTypesConfig['getTypeParser'],
};

function numbered(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

/** The row reader of any database by what `--db` takes (a backup file, a database made by a command). */
export function rowsOf(db: string): RowReader {
  return rowReader(/^postgres(ql)?:\/\//.test(db) ? 'postgres' : 'sqlite', db);
}

function rowReader(engine: TestEngine, db: string): RowReader {
  const all = async <T>(sql: string, ...args: unknown[]): Promise<T[]> => {
    if (engine === 'sqlite') {
      const s = new Database(db, { readonly: true, fileMustExist: true });
      try {
        return s.prepare(sql).all(...args) as T[];
      } finally {
        s.close();
      }
    }
    const c = new pg.Client({ connectionString: db, types: numberInt8 });
    await c.connect();
    try {
      return (await c.query(numbered(sql), args)).rows as T[];
    } finally {
      await c.end();
    }
  };
  return {
    all,
    get: async <T>(sql: string, ...args: unknown[]) => (await all<T>(sql, ...args))[0],
    run: async (sql: string, ...args: unknown[]) => {
      if (engine === 'sqlite') {
        const s = new Database(db, { fileMustExist: true });
        try {
          s.prepare(sql).run(...args);
        } finally {
          s.close();
        }
        return;
      }
      const c = new pg.Client({ connectionString: db });
      await c.connect();
      try {
        await c.query(numbered(sql), args);
      } finally {
        await c.end();
      }
    },
    tables: async () =>
      engine === 'sqlite'
        ? (await all<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'")).map((r) => r.name)
        : (
            await all<{ name: string }>(
              "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'",
            )
          ).map((r) => r.name),
    rawFiles: async (since = new Date(0)) => {
      if (engine === 'sqlite')
        return [db, `${db}-wal`].filter((f) => existsSync(f)).map((f) => ({ name: f, bytes: readFileSync(f) }));
      const c = new pg.Client({ connectionString: db });
      await c.connect();
      try {
        await c.query('CHECKPOINT');
        // One query for every relation: a round trip per file (a few hundred with the catalogs,
        // which a fresh database already has) took seconds on a loaded machine.
        const rels = await c.query<{ name: string; bytes: Buffer }>(
          `SELECT c.relname AS name, pg_read_binary_file(pg_relation_filepath(c.oid)) AS bytes FROM pg_class c
            WHERE c.relkind IN ('r', 't', 'i', 'm', 'S') AND pg_relation_filepath(c.oid) IS NOT NULL
              AND c.relnamespace NOT IN ('pg_catalog'::regnamespace, 'information_schema'::regnamespace)`,
        );
        const wal = await c.query<{ name: string }>(
          'SELECT name FROM pg_ls_waldir() WHERE modification >= $1 ORDER BY name',
          [since],
        );
        const read = async (path: string) =>
          (await c.query<{ bytes: Buffer }>('SELECT pg_read_binary_file($1) AS bytes', [path])).rows[0]?.bytes ??
          Buffer.alloc(0);
        const out: Array<{ name: string; bytes: Buffer }> = [...rels.rows];
        for (const w of wal.rows) {
          // A segment the server recycles (renames) between the listing and the read is gone:
          // whatever it held is no longer kept.
          const bytes = await read(`pg_wal/${w.name}`).catch(() => undefined);
          if (bytes) out.push({ name: `pg_wal/${w.name}`, bytes });
        }
        return out;
      } finally {
        await c.end();
      }
    },
    count: async (table: string) => (await all<{ n: number }>(`SELECT count(*) AS n FROM ${table}`))[0]?.n ?? 0,
    integrity: async () => {
      if (engine === 'sqlite')
        return (await all<{ integrity_check: string }>('PRAGMA integrity_check'))
          .map((r) => r.integrity_check)
          .join('\n');
      const c = new pg.Client({ connectionString: db });
      await c.connect();
      try {
        await c.query('CREATE EXTENSION IF NOT EXISTS amcheck');
        const r = await c.query<{ n: string }>(
          `SELECT count(bt_index_check(i.indexrelid, true)) AS n FROM pg_index i
             JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam
             JOIN pg_namespace s ON s.oid = c.relnamespace
            WHERE a.amname = 'btree' AND s.nspname = 'public'`,
        );
        return Number(r.rows[0]?.n) > 0 ? 'ok' : 'no indexes checked';
      } catch (e) {
        return (e as Error).message;
      } finally {
        await c.end();
      }
    },
  };
}

/**
 * `copyOf`: a copy of another shop database of the same engine that no process has open any
 * more (SQLite: its file and -wal copied; PostgreSQL: CREATE DATABASE … TEMPLATE), for tests
 * that start many times from the same arranged state.
 */
export async function shopDatabase(
  opts: { engine?: TestEngine; file?: string; prefix?: string; copyOf?: ShopDatabase } = {},
): Promise<ShopDatabase> {
  const engine = opts.copyOf?.engine ?? opts.engine ?? TEST_ENGINE;
  const tmp = tempDir(opts.prefix ?? 'paygate-shop-');
  const template = opts.copyOf && engine === 'postgres' ? new URL(opts.copyOf.db).pathname.slice(1) : undefined;
  const pgDb = engine === 'postgres' ? await createPgDatabase({ template }) : undefined;
  const db = pgDb ? pgDb.url : join(tmp.dir, opts.file ?? 'paygate.db');
  if (opts.copyOf && engine === 'sqlite') {
    copyFileSync(opts.copyOf.db, db);
    if (existsSync(`${opts.copyOf.db}-wal`)) copyFileSync(`${opts.copyOf.db}-wal`, `${db}-wal`);
  }
  return {
    engine,
    db,
    dir: tmp.dir,
    rows: rowReader(engine, db),
    drop: async () => {
      await pgDb?.drop();
      tmp.cleanup();
    },
  };
}
