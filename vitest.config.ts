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

/** End-to-end suites that run on both engines (the rest of test/e2e is listed in SQLITE_ONLY_E2E). */
const BOTH_ENGINES_E2E = [
  'test/e2e/http-*.test.ts',
  'test/e2e/callbacks-renew-at.test.ts',
  'test/e2e/cli-card-update.test.ts',
  'test/e2e/cli-operator.test.ts',
  'test/e2e/cli-payments.test.ts',
  'test/e2e/cli-tables.test.ts',
  'test/e2e/cli-terminal.test.ts',
  'test/e2e/cli-terminal-text.test.ts',
  'test/e2e/cli-tracking.test.ts',
];

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

export default defineConfig({
  test: {
    setupFiles: ['test/setup/contract.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Runs once per project, but every call after the first reuses the first one's cluster.
    globalSetup: ['test/helpers/postgres-global-setup.ts'],
    reporters: process.env.CI ? ['default', ['json', { outputFile: '.vitest-results.json' }]] : ['default'],
    projects: [
      {
        extends: true,
        test: { name: 'sqlite', include: ['test/**/*.test.ts'], env: { PAYGATE_TEST_ENGINE: 'sqlite' } },
      },
      ...(postgresRun() ? [{
        extends: true as const,
        test: {
          name: 'postgres',
          include: ['test/integration/**/*.test.ts', ...BOTH_ENGINES_E2E],
          exclude: ENGINE_SPECIFIC,
          env: { PAYGATE_TEST_ENGINE: 'postgres' },
        },
      }] : []),
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
