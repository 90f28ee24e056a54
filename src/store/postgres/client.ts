import pg from 'pg';
import { invalidParam } from '../../domain/errors.js';
import { StoreOpenError } from '../store.js';
import { migrate } from './migrate.js';
import { isPostgresUrl, redactUrl } from './url.js';

export interface PgStore {
  pool: pg.Pool;
  /** The pool's size (PAYGATE_DB_POOL or the default). */
  poolSize: number;
  close(): Promise<void>;
}

/**
 * A web process rarely has more than a handful of statements in flight at once; ten
 * connections per process keep a few instances well inside PostgreSQL's default
 * max_connections (100).
 */
export const DEFAULT_POOL_SIZE = 10;
const MAX_POOL_SIZE = 1000;
const MIN_SERVER_VERSION = 150000;

export function parsePoolSize(text: string | undefined): number {
  if (text === undefined || text.trim() === '') return DEFAULT_POOL_SIZE;
  const t = text.trim();
  if (!/^\d{1,4}$/.test(t) || Number(t) < 1 || Number(t) > MAX_POOL_SIZE) {
    throw invalidParam(
      'PAYGATE_DB_POOL',
      `must be a whole number of connections from 1 to ${MAX_POOL_SIZE}, got "${text}"`,
    );
  }
  return Number(t);
}

/**
 * int8 (money in minor units, epoch-ms instants, counts) read as JS numbers rather than strings:
 * every value paygate stores is far below 2^53.
 */
const INT8 = 20;
const INT8_ARRAY = 1016;
const builtinParser = pg.types.getTypeParser as unknown as (
  oid: number,
  format: 'text' | 'binary',
) => (v: string) => unknown;
const types: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
    if (oid === INT8) return (v: string) => Number(v);
    if (oid === INT8_ARRAY) {
      const parseArray = builtinParser(INT8_ARRAY, 'text') as (v: string) => (string | null)[];
      return (v: string) => parseArray(v).map((x) => (x === null ? null : Number(x)));
    }
    return builtinParser(oid, format ?? 'text');
  }) as pg.CustomTypesConfig['getTypeParser'],
};

export interface OpenPgOptions {
  /** Connections in the pool; default from PAYGATE_DB_POOL, else DEFAULT_POOL_SIZE. */
  poolSize?: number;
  env?: NodeJS.ProcessEnv;
  /** Another migrations folder (tests of a newer schema). */
  migrationsFolder?: string;
}

/**
 * Open a pool on a postgres:// or postgresql:// URL, check the server, and migrate under an
 * advisory lock. Every connection runs with synchronous_commit=on whatever the server's or
 * database's default: a success answer means the change is on disk (on the primary; standbys
 * are the operator's replication settings).
 */
export async function openPgStore(url: string, opts: OpenPgOptions = {}): Promise<PgStore> {
  if (!isPostgresUrl(url))
    throw new StoreOpenError(`not a PostgreSQL URL (postgres://… or postgresql://…): ${redactUrl(url)}`);
  const poolSize = opts.poolSize ?? parsePoolSize((opts.env ?? process.env).PAYGATE_DB_POOL);
  if (!Number.isInteger(poolSize) || poolSize < 1 || poolSize > MAX_POOL_SIZE) {
    throw invalidParam('PAYGATE_DB_POOL', `must be a whole number of connections from 1 to ${MAX_POOL_SIZE}`);
  }
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    types,
    // Set at connection start-up: no extra round trip, and no connection ever runs without it.
    options: '-c synchronous_commit=on',
    // A statement is sent without waiting for the answer to the one before it on the connection
    // (answers still come back in order, each statement still runs after the previous one): a unit
    // of work's BEGIN travels with its first statement, and a lock with the read it guards.
    // Every round trip saved is one wake-up of this process and of the server per unit of work.
    pipeline: true,
    application_name: 'paygate',
    connectionTimeoutMillis: 10_000,
    idleTimeoutMillis: 30_000,
  });
  // An idle connection the server closed (restart, failover) is dropped by the pool; without a
  // listener its error would end the process.
  pool.on('error', () => {});
  try {
    await checkServer(pool);
    await migrate(pool, opts.migrationsFolder);
  } catch (e) {
    await pool.end().catch(() => {});
    if (e instanceof StoreOpenError) throw e;
    throw new StoreOpenError(`cannot open database ${redactUrl(url)}: ${(e as Error).message}`);
  }
  let closed = false;
  return {
    pool,
    poolSize,
    close: async () => {
      if (closed) return;
      closed = true;
      await pool.end();
    },
  };
}

async function checkServer(pool: pg.Pool): Promise<void> {
  const r = await pool.query<{ num: string; version: string }>(
    "SELECT current_setting('server_version_num') AS num, current_setting('server_version') AS version",
  );
  const num = Number(r.rows[0]?.num ?? 0);
  if (num < MIN_SERVER_VERSION) {
    throw new StoreOpenError(
      `PostgreSQL ${r.rows[0]?.version ?? 'of unknown version'} is too old: paygate needs PostgreSQL 15 or newer`,
    );
  }
}
