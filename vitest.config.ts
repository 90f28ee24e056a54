import { readdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { findPostgres } from './test/helpers/postgres-cluster.js';

/**
 * Two projects in one run, sharing one throwaway PostgreSQL cluster (test/helpers/postgres-global-setup.ts):
 *  - `sqlite`: the whole suite (unit, integration, e2e) on the default engine;
 *  - `postgres`: the integration suite and the end-to-end suites about the product again with
 *    PAYGATE_TEST_ENGINE=postgres — every test app, `serve` and CLI run on a fresh database of
 *    the run's cluster (test/helpers/ctx.ts, shop-db.ts, served-shop.ts, callback-harness.ts).
 * The PostgreSQL-only tests (postgres-*.test.ts, e2e/postgres-*, db-copy-postgres) run in the
 * `sqlite` project: they pick their engine themselves.
 */

/** End-to-end suites about the product: they run on both engines (their databases come from shop-db.ts). */
const BOTH_ENGINES_E2E = [
  'test/e2e/http-*.test.ts',
  'test/e2e/callbacks-renew-at.test.ts',
  'test/e2e/renew-at-live-key.test.ts',
  'test/e2e/email-cli-serve.test.ts',
  'test/e2e/cli-card-update.test.ts',
  'test/e2e/cli-coupons.test.ts',
  'test/e2e/cli-invoices.test.ts',
  'test/e2e/cli-operator.test.ts',
  'test/e2e/cli-payments.test.ts',
  'test/e2e/cli-public-url.test.ts',
  'test/e2e/cli-renew-output.test.ts',
  'test/e2e/cli-rotate-key.test.ts',
  'test/e2e/cli-tables.test.ts',
  'test/e2e/cli-terminal-text.test.ts',
  'test/e2e/cli-tracking.test.ts',
  'test/e2e/stripe-scenarios.test.ts',
  'test/e2e/pages-hardening.test.ts',
  'test/e2e/security-fingerprints.test.ts',
  'test/e2e/report-cli.test.ts',
  'test/e2e/browser-card-update.test.ts',
  'test/e2e/browser-portal.test.ts',
  'test/e2e/card-page-limits.test.ts',
  'test/e2e/cli-merchants-plans.test.ts',
  'test/e2e/serve-shutdown.test.ts',
  'test/e2e/serve-killed-mid-burst.test.ts',
  'test/e2e/stripe-abandoned-3ds.test.ts',
  'test/e2e/stripe-abandoned-setup.test.ts',
  'test/e2e/stripe-renewals-refunds.test.ts',
  'test/e2e/stripe-coupons.test.ts',
  'test/e2e/stripe-limits.test.ts',
  'test/e2e/stripe-cards.test.ts',
  'test/e2e/stripe-portal.test.ts',
  'test/e2e/stripe-key-faults.test.ts',
  'test/e2e/stripe-webhook.test.ts',
];

/** End-to-end suites that run in the `sqlite` project only, and why. */
const SQLITE_ONLY_E2E: Record<string, string> = {
  // About SQLite files themselves.
  'test/e2e/cli-db-migrate.test.ts':
    'migrates older SQLite files, written with better-sqlite3 (and PostgreSQL databases it picks itself)',
  'test/e2e/cli-new-database.test.ts': 'the "created a new database" note and where the file goes',
  'test/e2e/cli-startup.test.ts': 'start-up errors of a SQLite path (a directory, a file that is not SQLite)',
  'test/e2e/cli-vault.test.ts': 'vault key files beside the database file, backups and restores of a file',
  'test/e2e/db-copy.test.ts': 'db copy between SQLite files (db-copy-postgres covers PostgreSQL both ways)',
  'test/e2e/sqlite-driver.test.ts': 'which better-sqlite3 the running Node loads (Node 24 needs 13)',
  'test/e2e/sqlite-locks.test.ts':
    'an open SQLite store keeps its POSIX locks on the file (other processes see it in use)',
  'test/e2e/security-file-modes.test.ts':
    'permissions of the database file, its -wal/-shm and backups; --db paths that are not databases',
  'test/e2e/renew-concurrency.test.ts':
    'renew processes sharing one SQLite file (postgres-multi-instance is the PostgreSQL counterpart)',
  // They choose their engines themselves.
  'test/e2e/postgres-engine.test.ts': 'PostgreSQL only, picks its own databases',
  'test/e2e/postgres-multi-instance.test.ts': 'PostgreSQL only, picks its own databases',
  'test/e2e/postgres-statements.test.ts': "PostgreSQL only, counts statements in its own database's server log",
  'test/e2e/db-copy-postgres.test.ts': 'copies SQLite <-> PostgreSQL, both engines in one test',
  // No database behaviour: documents, files and the command line surface.
  'test/e2e/api-contract.test.ts': 'answers checked against the OpenAPI document: shapes, not storage',
  'test/e2e/openapi-tools.test.ts': 'the OpenAPI document with external tools',
  'test/e2e/openapi-generators.test.ts': 'client generators (Node >= 22.18) on the OpenAPI document',
  'test/e2e/deploy-files.test.ts': 'deployment files (systemd, nginx, caddy)',
  'test/e2e/serve-log-full.test.ts': "serve's log on a full disk (standard output to a file): no database behaviour",
  'test/e2e/cli-readme.test.ts': 'README against --help',
  'test/e2e/cli-loaded-modules.test.ts': 'which modules a CLI process loads; it picks its engines itself',
  'test/e2e/security-v1-splice.test.ts': 'v1 signature parsing, decided before anything is read or stored',
  'test/e2e/browser-invoice-page.test.ts': 'the invoice page rendered from a document in Chromium: no database',
  'test/e2e/email-smtp.test.ts': 'the SMTP sender against a real SMTP server on loopback: no database',
  // What a person sees, the same whatever the engine: the flows' records are checked on both.
  'test/e2e/cli-terminal.test.ts':
    'colour, prompts and confirmations on a terminal (the commands themselves: cli-payments, cli-operator)',
  'test/e2e/browser-checkout.test.ts':
    'the checkout page in Chromium (the same flows, expiry included: integration/payments-pages on both)',
  // The Stripe channel against its stand-in (owned by the Stripe work).
  'test/e2e/stripe-browser.test.ts': 'the Stripe channel against its stand-in',
  'test/e2e/stripe-merchant.test.ts': 'the Stripe channel against its stand-in',
  'test/e2e/stripe-card-page-browser.test.ts': 'the Stripe channel against its stand-in',
  'test/e2e/stripe-key-input.test.ts': 'the Stripe channel against its stand-in',
  'test/e2e/stripe-live.test.ts':
    "opt-in, against Stripe's test mode (skipped without STRIPE_TEST_SECRET_KEY, never in CI)",
};

/**
 * Files left out of the PostgreSQL run, with why. Integration files that test one engine's own
 * parts, and end-to-end suites about SQLite files or about the engine-free surface.
 */
const ENGINE_SPECIFIC = [
  // PostgreSQL's own helpers, engine and connection handling: they pick their engine themselves.
  'test/integration/postgres-*.test.ts',
  // The SQLite writer queue and the SQLite store's file handling.
  'test/integration/writer.test.ts',
  'test/integration/store.test.ts',
  // The Stripe channel's adapter and stand-in: no database behaviour of their own.
  'test/integration/stripe-*.test.ts',
];

unclassifiedE2e();

export default defineConfig({
  test: {
    setupFiles: ['test/setup/contract.ts', 'test/setup/children.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // vitest's default is one worker less than the cores: ONE on a 2-core machine, so every file
    // waited for the one before it and one core idled while an end-to-end file waited on the
    // `paygate` processes it starts. At least two (VITEST_MAX_WORKERS overrides): three on a
    // loaded 2-core machine pushed the heaviest multi-process tests past their 30 s.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // Runs once per project, but every call after the first reuses the first one's cluster.
    globalSetup: ['test/helpers/postgres-global-setup.ts'],
    reporters: process.env.CI ? ['default', ['json', { outputFile: '.vitest-results.json' }]] : ['default'],
    projects: [
      {
        extends: true,
        test: { name: 'sqlite', include: ['test/**/*.test.ts'], env: { PAYGATE_TEST_ENGINE: 'sqlite' } },
      },
      ...(postgresRun()
        ? [
            {
              extends: true as const,
              test: {
                name: 'postgres',
                include: ['test/integration/**/*.test.ts', ...BOTH_ENGINES_E2E],
                exclude: ENGINE_SPECIFIC,
                env: { PAYGATE_TEST_ENGINE: 'postgres' },
              },
            },
          ]
        : []),
    ],
  },
});

/**
 * Without PostgreSQL installed (never in CI, where global setup fails the run instead) the
 * second run is left out; the global setup prints why.
 */
function postgresRun(): boolean {
  return Boolean(process.env.CI) || findPostgres().ok;
}

/** Every end-to-end file is on one of the two lists, so a new one is a decision, not an accident. */
function unclassifiedE2e(): void {
  const both = BOTH_ENGINES_E2E.map((g) => new RegExp(`^${g.replace(/[.]/g, '\\.').replace(/\*/g, '[^/]*')}$`));
  const files = readdirSync(new URL('./test/e2e/', import.meta.url))
    .filter((f) => f.endsWith('.test.ts'))
    .map((f) => `test/e2e/${f}`);
  const loose = files.filter((f) => !both.some((re) => re.test(f)) && !(f in SQLITE_ONLY_E2E));
  if (loose.length > 0)
    throw new Error(
      `vitest.config.ts: put ${loose.join(', ')} in BOTH_ENGINES_E2E or SQLITE_ONLY_E2E (with the reason)`,
    );
}
