import type { TestProject } from 'vitest/node';
import { findPostgres, startPgCluster } from './postgres-cluster.js';

/**
 * vitest global setup: ONE throwaway PostgreSQL cluster for the whole run, its URL provided to
 * every test file (`inject('pgClusterUrl')`, see test/helpers/postgres.ts) and exported as
 * PAYGATE_TEST_PG_URL for processes the tests start. Teardown stops and removes it whether the
 * tests passed or not.
 *
 * With CI=true a missing PostgreSQL fails the run: the PostgreSQL tests must never be skipped
 * silently there. Elsewhere they are skipped with the reason printed once.
 */
export default async function setup(project: TestProject): Promise<(() => void) | undefined> {
  const found = findPostgres();
  if (!found.ok) {
    if (process.env.CI) throw new Error(`CI=true: ${found.reason}`);
    console.warn(`[postgres] PostgreSQL tests skipped: ${found.reason}`);
    project.provide('pgClusterUrl', null);
    project.provide('pgUnavailableReason', found.reason);
    return undefined;
  }
  const cluster = await startPgCluster();
  process.env.PAYGATE_TEST_PG_URL = cluster.url;
  project.provide('pgClusterUrl', cluster.url);
  project.provide('pgUnavailableReason', null);
  return () => cluster.stop();
}
