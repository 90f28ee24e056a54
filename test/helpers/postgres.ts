import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import pg from 'pg';
import { afterAll, beforeAll, inject } from 'vitest';

export { findPostgres, startPgCluster, type PgCluster } from './postgres-cluster.js';

/**
 * Test access to the run's PostgreSQL cluster, started once by test/helpers/postgres-global-setup.ts.
 *
 *   const pgDb = usePgDatabase();            // a fresh database for this file, dropped afterwards
 *   describe.skipIf(!pgAvailable())(...)      // only outside CI: with CI=true a missing server fails the run
 *   pgDb.url                                 // postgres://postgres@127.0.0.1:PORT/t_…
 *   await createPgDatabase()                 // one more database (per test), { url, name, drop }
 */

declare module 'vitest' {
  interface ProvidedContext {
    /** Superuser URL of the run's cluster, or null when PostgreSQL is not installed (never in CI). */
    pgClusterUrl: string | null;
    pgUnavailableReason: string | null;
  }
}

/** The cluster's superuser URL (its `postgres` database); throws when there is no cluster. */
export function pgClusterUrl(): string {
  const url = inject('pgClusterUrl');
  if (!url)
    throw new Error(`no PostgreSQL test cluster: ${inject('pgUnavailableReason') ?? 'global setup did not run'}`);
  return url;
}

export function pgAvailable(): boolean {
  return Boolean(inject('pgClusterUrl'));
}

export interface PgTestDatabase {
  readonly url: string;
  readonly name: string;
  /** Drops the database, ending any connection still open on it. */
  drop(): Promise<void>;
}

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/**
 * A connection to the cluster, or an error that says the cluster is gone: a run whose cluster
 * died (its processes killed, its directory made unreadable) otherwise fails later and elsewhere,
 * as a hook's follow-on error, without naming the cause.
 */
export async function connectToCluster(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url });
  try {
    await client.connect();
    return client;
  } catch (e) {
    await client.end().catch(() => {});
    const u = new URL(url);
    throw new Error(
      `the PostgreSQL test cluster at ${u.host} does not answer (${(e as Error).message}): it stopped during the run — its server was killed, or its directory under ${tmpdir()} became unreadable to the postgres user`,
      { cause: e },
    );
  }
}

async function admin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = await connectToCluster(pgClusterUrl());
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/**
 * A new empty database on the run's cluster, or a copy of `template` (a database of the cluster
 * nobody is connected to) made by PostgreSQL's CREATE DATABASE … TEMPLATE.
 */
export async function createPgDatabase(opts: { template?: string } = {}): Promise<PgTestDatabase> {
  const name = `t_${randomBytes(6).toString('hex')}`;
  if (opts.template !== undefined && !/^t_[0-9a-f]{12}$/.test(opts.template))
    throw new Error(`createPgDatabase: ${opts.template} is not a test database`);
  await admin((c) => c.query(`CREATE DATABASE ${name}${opts.template ? ` TEMPLATE ${opts.template}` : ''}`));
  let dropped = false;
  return {
    url: withDatabase(pgClusterUrl(), name),
    name,
    drop: async () => {
      if (dropped) return;
      dropped = true;
      await admin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    },
  };
}

/**
 * A fresh database for the calling test file: created in beforeAll, dropped in afterAll.
 * Read `url` inside tests or hooks, not at module load.
 */
export function usePgDatabase(): { readonly url: string; readonly name: string } {
  let db: PgTestDatabase | undefined;
  beforeAll(async () => {
    if (pgAvailable()) db = await createPgDatabase();
  });
  afterAll(async () => {
    await db?.drop();
  });
  return {
    get url() {
      if (!db) throw new Error('usePgDatabase: no database (read it inside a test, with PostgreSQL available)');
      return db.url;
    },
    get name() {
      if (!db) throw new Error('usePgDatabase: no database (read it inside a test, with PostgreSQL available)');
      return db.name;
    },
  };
}
