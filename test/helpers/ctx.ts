import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openApp, type Ctx } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { FixedClock } from '../../src/domain/clock.js';
import { createMerchant } from '../../src/services/merchants.js';

export const TEST_VAULT_KEY = Buffer.alloc(32, 7).toString('base64');

/** A fresh temp directory, removed by the returned cleanup. */
export function tempDir(prefix = 'paygate-test-'): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface TestApp {
  ctx: Ctx;
  clock: FixedClock;
  dir: string;
  dbPath: string;
  close: () => void;
}

/** A real migrated SQLite file in a temp dir, with a settable clock. */
export function testApp(opts: { zone?: string; now?: number; env?: NodeJS.ProcessEnv } = {}): TestApp {
  const { dir, cleanup } = tempDir();
  const dbPath = join(dir, 'paygate.db');
  const clock = new FixedClock(opts.now ?? Date.UTC(2026, 0, 15, 9, 0, 0));
  const config = loadConfig({ db: dbPath, tz: opts.zone ?? 'UTC' }, { PAYGATE_VAULT_KEY: TEST_VAULT_KEY, ...opts.env });
  const ctx = openApp(config, { clock });
  return {
    ctx,
    clock,
    dir,
    dbPath,
    close: () => {
      ctx.close();
      cleanup();
    },
  };
}

/**
 * A notifyUrl for tests that look at the outbox rather than at deliveries (events with no URL
 * anywhere are not written): nothing listens on port 9, so an attempt fails at once.
 */
export const CLOSED_NOTIFY_URL = 'http://127.0.0.1:9/notify';

export function testMerchant(ctx: Ctx, input: Record<string, unknown> = {}) {
  return createMerchant(ctx, { name: 'Test Shop', ...input });
}
