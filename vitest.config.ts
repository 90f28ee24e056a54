import { defineConfig } from 'vitest/config';
import { findPostgres } from './test/helpers/postgres-cluster.js';

/**
 * Two projects in one run:
 *  - `sqlite`: the whole suite (unit, integration, e2e) on the default engine;
 *  - `postgres`: the integration suite again with PAYGATE_TEST_ENGINE=postgres, every test app on a
 *    fresh database of the run's PostgreSQL cluster (test/helpers/ctx.ts). Files that test one
 *    engine's own parts (the SQLite writer and file handling, the PostgreSQL helpers, which need no
 *    second run) are left out of it.
 * The PostgreSQL-only tests (postgres-*.test.ts, e2e/postgres-*) run in the `sqlite` project: they
 * pick their engine themselves.
 */
const ENGINE_SPECIFIC = [
  'test/integration/postgres-*.test.ts',
  'test/integration/writer.test.ts',
  'test/integration/store.test.ts',
  'test/integration/stripe-*.test.ts',
];

// Without PostgreSQL installed (never in CI, where global setup fails the run instead) the
// second run is left out; the global setup prints why.
const postgresRun = Boolean(process.env.CI) || findPostgres().ok;

export default defineConfig({
  test: {
    setupFiles: ['test/setup/contract.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // One throwaway PostgreSQL cluster per project (test/helpers/postgres.ts).
    globalSetup: ['test/helpers/postgres-global-setup.ts'],
    reporters: process.env.CI ? ['default', ['json', { outputFile: '.vitest-results.json' }]] : ['default'],
    projects: [
      {
        extends: true,
        test: { name: 'sqlite', include: ['test/**/*.test.ts'], env: { PAYGATE_TEST_ENGINE: 'sqlite' } },
      },
      ...(postgresRun ? [{
        extends: true as const,
        test: {
          name: 'postgres',
          include: ['test/integration/**/*.test.ts'],
          exclude: ENGINE_SPECIFIC,
          env: { PAYGATE_TEST_ENGINE: 'postgres' },
        },
      }] : []),
    ],
  },
});
