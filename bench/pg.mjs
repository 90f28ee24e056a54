// The PostgreSQL server a `--pg` benchmark runs against: the URL after `--pg` when one is given
// (a superuser URL; the bench creates and drops its own databases there), otherwise a throwaway
// PostgreSQL 15+ cluster started like the test suite's (test/helpers/postgres-cluster.ts: initdb
// in a temp dir, as the `postgres` user via runuser when run as root, a free loopback port,
// fsync and synchronous_commit on), stopped and removed afterwards.
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** Whether the command line asks for PostgreSQL, and the URL given after `--pg`, if any. */
export function pgArg(argv = process.argv) {
  const i = argv.indexOf('--pg');
  if (i < 0) return { wanted: false, url: undefined };
  const next = argv[i + 1];
  return { wanted: true, url: next && /^postgres(ql)?:\/\//i.test(next) ? next : undefined };
}

function withDatabase(url, name) {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/**
 * { url, label, createDatabase(), dropDatabase(), stop() } — createDatabase() returns the URL of a
 * new database; stop() drops every database it created and stops a cluster this call started.
 */
export async function pgServer(givenUrl) {
  let cluster;
  let adminUrl = givenUrl;
  let label = 'the server at the given URL';
  if (!adminUrl) {
    // The cluster helper is TypeScript shared with the tests; tsx (installed with drizzle-kit
    // and vitest) loads it.
    const { tsImport } = await import('tsx/esm/api');
    const { startPgCluster } = await tsImport('../test/helpers/postgres-cluster.ts', import.meta.url);
    cluster = await startPgCluster({ maxConnections: 200 });
    adminUrl = cluster.url;
    label = `a throwaway PostgreSQL ${cluster.major} cluster (defaults, fsync and synchronous_commit on)`;
  }
  const pg = require('pg');
  const created = [];
  const admin = async (sql) => {
    const c = new pg.Client({ connectionString: adminUrl });
    await c.connect();
    try {
      return await c.query(sql);
    } finally {
      await c.end();
    }
  };
  const version = (await admin('SHOW server_version')).rows[0].server_version;
  return {
    url: adminUrl,
    label: `${label}, server ${version}`,
    /** The server's log file, when this call started the cluster (with `log_statement` it counts statements). */
    logFile: cluster ? `${cluster.dir}/server.log` : undefined,
    /** A new database: empty, or a copy of the database at `templateUrl` (nobody connected to it). */
    async createDatabase(templateUrl) {
      const name = `bench_${randomBytes(5).toString('hex')}`;
      const template = templateUrl ? ` TEMPLATE ${new URL(templateUrl).pathname.slice(1)}` : '';
      await admin(`CREATE DATABASE ${name}${template}`);
      created.push(name);
      return withDatabase(adminUrl, name);
    },
    async dropDatabase(url) {
      const name = new URL(url).pathname.slice(1);
      await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      const i = created.indexOf(name);
      if (i >= 0) created.splice(i, 1);
    },
    async stop() {
      if (cluster) {
        cluster.stop();
        return;
      }
      for (const name of created.splice(0)) await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
    },
  };
}
