import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/*
 * What every test needs without the application: end-to-end files, which drive the built
 * binary, import this rather than ctx.ts so they do not load the whole app into each worker.
 */

/**
 * The engine the integration suite runs on: PAYGATE_TEST_ENGINE=postgres runs it against the
 * run's PostgreSQL cluster (vitest.config.ts runs test/integration once per engine).
 */
/**
 * How long a paygate process the tests start waits for one Stripe call (PAYGATE_STRIPE_TIMEOUT_MS):
 * the fault tests hold the stand-in's answer back, and each would otherwise wait the 20 s default.
 */
export const TEST_STRIPE_TIMEOUT_MS = '5000';

export type TestEngine = 'sqlite' | 'postgres';
export const TEST_ENGINE: TestEngine = process.env.PAYGATE_TEST_ENGINE === 'postgres' ? 'postgres' : 'sqlite';

export const TEST_VAULT_KEY = Buffer.alloc(32, 7).toString('base64');

/** A fresh temp directory, removed by the returned cleanup. */
export function tempDir(prefix = 'paygate-test-'): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** The default start of a test app's clock. */
export const TEST_NOW = Date.UTC(2026, 0, 15, 9, 0, 0);

/**
 * A notifyUrl for tests that look at the outbox rather than at deliveries (events with no URL
 * anywhere are not written): nothing listens on port 9, so an attempt fails at once.
 */
export const CLOSED_NOTIFY_URL = 'http://127.0.0.1:9/notify';
