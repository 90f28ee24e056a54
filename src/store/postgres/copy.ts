import pg from 'pg';
import {
  OWN_TABLE_NAMES,
  refuseUnlessEmpty,
  safeInteger,
  type CopyRow,
  type CopySource,
  type CopyTable,
  type CopyTarget,
  type TargetContents,
} from '../copy.js';
import { StoreOpenError } from '../store.js';
import { openPgStore } from './client.js';
import { isPostgresUrl, redactUrl } from './url.js';

/** The PostgreSQL half of `db copy` (store/copy.ts orchestrates). */

const quote = (name: string): string => `"${name.replaceAll('"', '""')}"`;
const columnList = (t: CopyTable): string => t.columns.map((c) => quote(c.name)).join(', ');

const INT8 = 20;
const builtinParser = pg.types.getTypeParser as unknown as (
  oid: number,
  format: 'text' | 'binary',
) => (v: string) => unknown;
/** int8 read for copying: exactly, or the copy stops (never a rounded number). */
const exactTypes: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
    if (oid === INT8) return (v: string) => safeInteger(BigInt(v), 'int8 column');
    return builtinParser(oid, format ?? 'text');
  }) as pg.CustomTypesConfig['getTypeParser'],
};

function toNeutral(t: CopyTable, row: unknown[]): CopyRow {
  return row.map((v, i) => {
    const col = t.columns[i];
    if (v === null || v === undefined) return null;
    if (typeof v === 'boolean' || typeof v === 'string') return v;
    if (typeof v === 'number') return safeInteger(v, `${t.name}.${col?.name}`);
    throw new Error(`${t.name}.${col?.name}: a value of an unexpected type cannot be copied`);
  });
}

/**
 * Read a database from one snapshot: a REPEATABLE READ, READ ONLY transaction on one connection
 * of `pool`, held until `end`, so rows committed by running instances meanwhile are not half in
 * the copy.
 */
export async function pgCopySource(pool: pg.Pool): Promise<CopySource> {
  const client = await pool.connect();
  const ignore = (): void => {};
  client.on('error', ignore);
  let broken: Error | undefined;
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
  } catch (e) {
    client.removeListener('error', ignore);
    client.release(e as Error);
    throw e;
  }
  let ended = false;
  const query = async (text: string, values: unknown[]): Promise<unknown[][]> => {
    try {
      const r = await client.query({ text, values, rowMode: 'array', types: exactTypes });
      return r.rows as unknown[][];
    } catch (e) {
      broken = e as Error;
      throw e;
    }
  };
  return {
    async count(t) {
      const rows = await query(`SELECT count(*) FROM ${quote(t.name)}`, []);
      return Number(rows[0]?.[0] ?? 0);
    },
    async readBatch(t, after, limit) {
      const keys = t.key.map(quote).join(', ');
      const where = after === null ? '' : `WHERE (${keys}) > (${t.key.map((_, i) => `$${i + 1}`).join(', ')})`;
      const values = [...(after ?? []), limit];
      const rows = await query(
        `SELECT ${columnList(t)} FROM ${quote(t.name)} ${where} ORDER BY ${keys} LIMIT $${values.length}`,
        values,
      );
      return rows.map((r) => toNeutral(t, r));
    },
    async end() {
      if (ended) return;
      ended = true;
      if (!broken) await client.query('COMMIT').catch((e: Error) => (broken = e));
      client.removeListener('error', ignore);
      client.release(broken ?? false);
    },
  };
}

/**
 * A target that held none of paygate's tables nor drizzle's bookkeeping before the copy: the copy
 * creates them (migrating it), so undoing the copy drops them. `schema`: whether the "drizzle"
 * schema was there already (then it is kept).
 */
interface Untouched {
  schema: boolean;
}

/** paygate's tables in the target's schema (the migrations' bookkeeping lives in "drizzle"). */
const PAYGATE_TABLES = [...OWN_TABLE_NAMES].filter((n) => n !== '__drizzle_migrations');

/**
 * What the database holds, read before the target is migrated or written: rows of each of
 * `tables` that exists, and every table, view or foreign table that is not paygate's. Both are
 * looked for in the schema paygate's migrations would create their tables in (current_schema(),
 * the first schema of the search_path that exists), not in "public" whatever the search_path says.
 */
async function databaseContents(
  url: string,
  tables: readonly CopyTable[],
): Promise<TargetContents & { untouched: Untouched | undefined }> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000, application_name: 'paygate' });
  client.on('error', () => {});
  try {
    await client.connect();
    const listed = await client.query<{ schema: string; name: string }>(
      `SELECT n.nspname AS schema, c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p', 'v', 'm', 'f') ORDER BY c.relname`,
    );
    const present = new Map(listed.rows.map((r) => [r.name, r.schema]));
    const occupied: TargetContents['occupied'] = [];
    for (const t of tables) {
      const schema = present.get(t.name);
      if (schema === undefined) continue;
      const r = await client.query<{ n: string }>(`SELECT count(*) AS n FROM ${quote(schema)}.${quote(t.name)}`);
      const n = Number(r.rows[0]?.n ?? 0);
      if (n > 0) occupied.push({ table: t.name, rows: n });
    }
    const bookkeeping = await client.query<{ migrations: string | null; schema: string | null }>(
      "SELECT to_regclass('drizzle.__drizzle_migrations')::text AS migrations, to_regnamespace('drizzle')::text AS schema",
    );
    const marks = bookkeeping.rows[0];
    const ownTables = [...present.keys()].some((n) => OWN_TABLE_NAMES.has(n));
    return {
      occupied,
      foreign: [...present.keys()].filter((n) => !OWN_TABLE_NAMES.has(n)),
      untouched: !ownTables && !marks?.migrations ? { schema: (marks?.schema ?? null) !== null } : undefined,
    };
  } catch (e) {
    throw new StoreOpenError(`cannot open database ${redactUrl(url)}: ${(e as Error).message}`);
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * Open the database at `url` to be filled: looked at first and refused if it holds rows or
 * another application's tables (so a refused target is left as it was), then migrated by the engine's own open (advisory lock).
 * After the copy, each identity sequence (outbox_events.seq, customer_emails.seq) continues after the largest number copied.
 */
export async function openPgCopyTarget(url: string, tables: readonly CopyTable[]): Promise<CopyTarget> {
  if (!isPostgresUrl(url))
    throw new StoreOpenError(`not a PostgreSQL URL (postgres://… or postgresql://…): ${redactUrl(url)}`);
  const before = await databaseContents(url, tables);
  refuseUnlessEmpty(redactUrl(url), before);
  const store = await openPgStore(url, { poolSize: 2 });
  const count = async (t: CopyTable): Promise<number> => {
    const r = await store.pool.query<{ n: number }>(`SELECT count(*) AS n FROM ${quote(t.name)}`);
    return Number(r.rows[0]?.n ?? 0);
  };
  return {
    async occupied(ts) {
      const found: Array<{ table: string; rows: number }> = [];
      for (const t of ts) {
        const rows = await count(t);
        if (rows > 0) found.push({ table: t.name, rows });
      }
      return found;
    },
    async insertBatch(t, rows) {
      if (rows.length === 0) return;
      const width = t.columns.length;
      const tuples = rows.map((_, r) => `(${t.columns.map((_, c) => `$${r * width + c + 1}`).join(', ')})`).join(', ');
      // One statement is one transaction: the whole batch or nothing.
      await store.pool.query(`INSERT INTO ${quote(t.name)} (${columnList(t)}) VALUES ${tuples}`, rows.flat());
    },
    count,
    async finish() {
      // Rows came with their numbers: each identity goes on past them (SQLite's AUTOINCREMENT does
      // so by itself), or the next callback event or customer email would take a copied number.
      for (const t of tables)
        for (const c of t.columns.filter((col) => col.numbered)) {
          const [table, column] = [quote(t.name), quote(c.name)];
          await store.pool.query(
            `SELECT setval(pg_get_serial_sequence($1, $2), coalesce((SELECT max(${column}) FROM ${table}), 0) + 1, false)`,
            [table, c.name],
          );
        }
    },
    async discard() {
      if (before.untouched) {
        // The copy created the schema: dropping it leaves the database as it was. One implicit
        // transaction, RESTRICT: a table something else has come to depend on stops the undo
        // whole (it says so) rather than taking that with it. Nothing that was there is dropped.
        await store.pool.query(
          [
            `DROP TABLE ${PAYGATE_TABLES.map(quote).join(', ')}`,
            'DROP TABLE drizzle.__drizzle_migrations',
            ...(before.untouched.schema ? [] : ['DROP SCHEMA drizzle']),
          ].join(';\n'),
        );
        return 'dropped';
      }
      // The tables were there, empty, when the copy began: emptying what was copied restores them.
      await store.pool.query(`TRUNCATE ${tables.map((t) => quote(t.name)).join(', ')} RESTART IDENTITY`);
      return 'emptied';
    },
    async close() {
      await store.close();
    },
  };
}
