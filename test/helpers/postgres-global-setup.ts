import type { TestProject } from 'vitest/node';
import { findPostgres, startPgCluster, type PgCluster } from './postgres-cluster.js';

/**
 * vitest global setup: ONE throwaway PostgreSQL cluster for the whole run, its URL provided to
 * every test file (`inject('pgClusterUrl')`, see test/helpers/postgres.ts) and exported as
 * PAYGATE_TEST_PG_URL for processes the tests start. Teardown stops and removes it whether the
 * tests passed or not.
 *
 * vitest 4 runs a global setup once for the root project and once more for every project that
 * has tests queued (`extends: true` gives each project the root's globalSetup), each through its
 * own module runner, so a module-level variable here would exist once per project. The cluster
 * therefore lives on `globalThis` (one main process), counted by its users: the first setup
 * starts it, every later one reuses it, the last teardown stops it.
 *
 * With CI=true a missing PostgreSQL fails the run: the PostgreSQL tests must never be skipped
 * silently there. Elsewhere they are skipped with the reason printed once.
 */
type Started = { ok: true; cluster: PgCluster } | { ok: false; reason: string };
interface Shared {
  started: Promise<Started>;
  users: number;
}

const KEY = Symbol.for('paygate.test.pgCluster');
const holder = globalThis as typeof globalThis & { [KEY]?: Shared };

async function start(): Promise<Started> {
  const found = findPostgres();
  if (!found.ok) {
    if (process.env.CI) throw new Error(`CI=true: ${found.reason}`);
    console.warn(`[postgres] PostgreSQL tests skipped: ${found.reason}`);
    return { ok: false, reason: found.reason };
  }
  const cluster = await startPgCluster();
  process.env.PAYGATE_TEST_PG_URL = cluster.url;
  return { ok: true, cluster };
}

export default async function setup(project: TestProject): Promise<() => void> {
  holder[KEY] ??= { started: start(), users: 0 };
  const shared = holder[KEY];
  shared.users++;
  const started = await shared.started;
  project.provide('pgClusterUrl', started.ok ? started.cluster.url : null);
  project.provide('pgUnavailableReason', started.ok ? null : started.reason);
  return () => {
    if (--shared.users > 0) return;
    delete holder[KEY];
    if (started.ok) started.cluster.stop();
  };
}
