import { type AddressInfo, createServer } from 'node:net';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { connectToCluster, createPgDatabase, pgAvailable, pgClusterUrl, usePgDatabase } from '../helpers/postgres.js';

/** The throwaway test cluster itself: what every PostgreSQL test relies on. */
describe.skipIf(!pgAvailable())('the PostgreSQL test cluster', () => {
  const db = usePgDatabase();

  async function query<T extends pg.QueryResultRow>(url: string, text: string): Promise<T[]> {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return (await client.query<T>(text)).rows;
    } finally {
      await client.end();
    }
  }

  it('runs PostgreSQL 15 or newer on loopback with fsync and synchronous_commit on', async () => {
    const rows = await query<{ v: string; fsync: string; sc: string; addr: string }>(
      db.url,
      "SELECT current_setting('server_version_num') AS v, current_setting('fsync') AS fsync, current_setting('synchronous_commit') AS sc, inet_server_addr()::text AS addr",
    );
    expect(Number(rows[0]?.v)).toBeGreaterThanOrEqual(150000);
    expect(rows[0]).toMatchObject({ fsync: 'on', sc: 'on', addr: '127.0.0.1/32' });
    expect(new URL(pgClusterUrl()).hostname).toBe('127.0.0.1');
  });

  it('gives each caller its own database and drops it with its connections', async () => {
    const other = await createPgDatabase();
    await query(other.url, 'CREATE TABLE only_here (id int)');
    expect(await query(db.url, "SELECT to_regclass('only_here') AS t")).toEqual([{ t: null }]);
    const lingering = new pg.Client({ connectionString: other.url });
    await lingering.connect();
    lingering.on('error', () => {});
    await other.drop();
    const left = await query<{ n: number }>(
      pgClusterUrl(),
      `SELECT count(*)::int AS n FROM pg_database WHERE datname = '${other.name}'`,
    );
    expect(left).toEqual([{ n: 0 }]);
    await lingering.end().catch(() => {});
  });
});

describe('a test cluster that stopped', () => {
  it('is reported as stopped, with the refused connection, instead of failing later elsewhere', async () => {
    // A port nothing listens on: what a dead cluster's URL leads to.
    const closed = await new Promise<number>((resolve) => {
      const srv = createServer().listen(0, '127.0.0.1', () => {
        const port = (srv.address() as AddressInfo).port;
        srv.close(() => resolve(port));
      });
    });
    await expect(connectToCluster(`postgres://postgres@127.0.0.1:${closed}/postgres`)).rejects.toThrow(
      /^the PostgreSQL test cluster at 127\.0\.0\.1:\d+ does not answer \(.*ECONNREFUSED.*\): it stopped during the run/,
    );
  });
});
