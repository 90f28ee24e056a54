import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN } from '../helpers/cli.js';
import { TEST_VAULT_KEY, tempDir } from '../helpers/env.js';
import { createPgDatabase, pgAvailable } from '../helpers/postgres.js';

/**
 * The test suite starts hundreds of `paygate` processes: each loads only what its command needs.
 * Help, version, completion and usage errors load no services, engine, HTTP server or schema
 * library; a SQLite process with a sandbox merchant never loads Stripe's client or PostgreSQL's
 * driver (both are imported on first use). A module resolve hook records what a process loads.
 * Of drizzle-orm a process loads only the migration-file reader: its query builder is not used at
 * run time, and on Node 24 each of its modules re-reads the package's 179 KB package.json, which
 * cost a PostgreSQL `paygate merchant list` 1.9 s of CPU instead of 0.5 s.
 */

// Runs in node's hooks thread: appends every resolved URL to the file named by the environment.
const HOOKS = `import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const r = await next(specifier, context);
  appendFileSync(process.env.PAYGATE_TEST_LOADED_LOG, r.url + '\\n');
  return r;
}`;
const PRELOAD = `import { register } from 'node:module';
register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(HOOKS)}`)});`;

let dir: string;
let cleanup: () => void;
let db: string;
let runs = 0;
beforeAll(() => {
  ({ dir, cleanup } = tempDir());
  db = join(dir, 'shop.db');
});
afterAll(() => cleanup());

/** The packages (node_modules/<name>) and dist/ modules a `paygate` process resolved. */
function loaded(
  args: string[],
  database = db,
): { status: number | null; stdout: string; packages: Set<string>; dist: string[]; drizzle: string[] } {
  const log = join(dir, `loaded-${++runs}.log`);
  const r = spawnSync(
    process.execPath,
    ['--import', `data:text/javascript,${encodeURIComponent(PRELOAD)}`, BIN, ...args],
    {
      encoding: 'utf8',
      input: '',
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        PAYGATE_DB: database,
        PAYGATE_VAULT_KEY: TEST_VAULT_KEY,
        PAYGATE_TEST_LOADED_LOG: log,
      },
      timeout: 60_000,
    },
  );
  const urls = readFileSync(log, 'utf8').split('\n').filter(Boolean);
  const packages = new Set(
    urls.flatMap((u) => {
      const m = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(u);
      return m?.[1] ? [m[1]] : [];
    }),
  );
  const dist = urls.flatMap((u) => {
    const m = /\/dist\/(.+\.js)$/.exec(u);
    return m?.[1] ? [m[1]] : [];
  });
  const drizzle = urls.flatMap((u) => {
    const m = /\/node_modules\/drizzle-orm\/(.+)$/.exec(u);
    return m?.[1] ? [m[1]] : [];
  });
  return { status: r.status, stdout: r.stdout, packages, dist, drizzle };
}

/** The SQLite driver is better-sqlite3 on Node 20 and its 13 (better-sqlite3-napi) on Node 22+. */
const SQLITE = ['better-sqlite3', 'better-sqlite3-napi'];
const HEAVY = ['stripe', 'pg', ...SQLITE, 'drizzle-orm', 'zod', 'fastify', 'luxon'];
/** dist/ modules only an action needs… */
const BEHIND_ACTIONS = /^(services|store|http|channel|notify|report)\/|^(app|config)\.js$/;
/** …but for these, plain values and error classes the command line names and prints. */
const PLAIN_VALUES = new Set(['services/transactions/status.js', 'store/store.js']);

describe('a paygate process loads what its command needs', () => {
  it.each([
    [['--version'], 0],
    [['--help'], 0],
    [['merchant', 'create', '--help'], 0],
    [['serve', '--help'], 0],
    [['completion', 'bash'], 0],
    [['merchant', 'bogus'], 2],
  ])('%j loads no services, engine, server or schema library', (args, status) => {
    const r = loaded(args);
    expect(r.status).toBe(status);
    expect([...HEAVY, 'cli-table3', 'string-width'].filter((p) => r.packages.has(p))).toEqual([]);
    expect(r.dist.filter((f) => BEHIND_ACTIONS.test(f) && !PLAIN_VALUES.has(f))).toEqual([]);
  });

  it('output for a program (off a terminal: JSON) loads no table drawing (cli-table3, string-width)', () => {
    const r = loaded(['merchant', 'list']);
    expect(r.status).toBe(0);
    expect(['cli-table3', 'string-width'].filter((p) => r.packages.has(p))).toEqual([]);
    expect(r.dist).not.toContain('cli/tables.js');
  });

  it('a SQLite process paying with a sandbox merchant loads SQLite, not Stripe, PostgreSQL or the HTTP server', () => {
    const created = loaded(['merchant', 'create', '--name', 'Shop', '--json']);
    expect(created.status).toBe(0);
    const merchantId = (JSON.parse(created.stdout) as { merchantId: string }).merchantId;
    const r = loaded([
      'pay',
      '--merchant',
      merchantId,
      '--amount',
      '10.00',
      '--card',
      '4242424242424242',
      '--exp',
      '12/2030',
      '--cvv',
      '123',
    ]);
    expect(r.status).toBe(0);
    expect(SQLITE.some((p) => r.packages.has(p))).toBe(true);
    expect(['stripe', 'pg', 'fastify'].filter((p) => r.packages.has(p))).toEqual([]);
    expect(r.dist).not.toContain('store/postgres/store.js');
    expect(r.dist).not.toContain('channel/stripe/channel.js');
  });

  it('a SQLite process loads nothing of drizzle-orm but its migration-file reader', () => {
    const r = loaded(['merchant', 'list']);
    expect(r.status).toBe(0);
    expect(r.drizzle).toEqual(['migrator.js']);
  });

  it.skipIf(!pgAvailable())(
    'a PostgreSQL process loads nothing of drizzle-orm but its migration-file reader',
    async () => {
      const pgDb = await createPgDatabase();
      try {
        const r = loaded(['merchant', 'list'], pgDb.url);
        expect(r.status).toBe(0);
        expect(r.packages.has('pg')).toBe(true);
        expect(r.drizzle).toEqual(['migrator.js']);
      } finally {
        await pgDb.drop();
      }
    },
    // A new database's migrations (a series of fsynced DDL statements) and a process whose every
    // module resolve is logged through a hook: 2.4 s on a quiet machine, past 30 s beside stress-ng.
    60_000,
  );
});
