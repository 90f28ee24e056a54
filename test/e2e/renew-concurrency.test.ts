import { spawn } from 'node:child_process';
import { Database } from '../../src/store/sqlite/driver.js';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir, TEST_VAULT_KEY } from '../helpers/env.js';
import { BIN } from '../helpers/cli.js';
import { seedDueSubscriptions } from '../helpers/seed-renewals.js';

const START = Date.UTC(2026, 0, 15, 9, 0, 0);
const DUE = Date.UTC(2026, 1, 15, 9, 0, 0);
const AT = '2026-02-15 10:00:00';
const AFTER_LEASE = '2026-02-15 10:11:00';

let cleanup: (() => void) | undefined;
afterEach(() => cleanup?.());

interface Proc {
  pid: number | undefined;
  kill: (signal: NodeJS.Signals) => void;
  done: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>;
}

function renew(db: string, at: string): Proc {
  const child = spawn(process.execPath, [BIN, '--db', db, 'renew', '--at', at, '--json'], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, PAYGATE_VAULT_KEY: TEST_VAULT_KEY },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>(
    (resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })),
  );
  return { pid: child.pid, kill: (s) => child.kill(s), done };
}

function ledger(db: string): {
  charges: number;
  distinctKeys: number;
  success: number;
  pending: number;
  renewalTxns: number;
  events: number;
} {
  const s = new Database(db, { readonly: true });
  try {
    const one = (sql: string): number => (s.prepare(sql).get() as { n: number }).n;
    return {
      charges: one("SELECT count(*) AS n FROM sandbox_charges WHERE kind = 'charge'"),
      distinctKeys: one("SELECT count(DISTINCT idempotency_key) AS n FROM sandbox_charges WHERE kind = 'charge'"),
      success: one("SELECT count(*) AS n FROM billing_records WHERE billing_type = 'RENEW' AND status = 'SUCCESS'"),
      pending: one(`SELECT count(*) AS n FROM billing_records WHERE status = 'PENDING' AND scheduled_time <= ${DUE}`),
      renewalTxns: one("SELECT count(*) AS n FROM transactions WHERE payment_type = 'RENEWAL'"),
      events: one("SELECT count(*) AS n FROM outbox_events WHERE event_type = 'RENEW_SUCCEEDED'"),
    };
  } finally {
    s.close();
  }
}

describe('paygate renew under concurrency', () => {
  it('four processes started together over 5,000 due subscriptions charge exactly 5,000 times', async () => {
    const t = tempDir('paygate-renew4-');
    cleanup = t.cleanup;
    const db = await seedDueSubscriptions(t.dir, 5000, { startedAt: START, dueAt: DUE });
    const procs = [0, 1, 2, 3].map(() => renew(db, AT));
    const results = await Promise.all(procs.map((p) => p.done));
    for (const r of results) expect(r.code, r.stderr).toBe(0);
    const summaries = results.map((r) => JSON.parse(r.stdout) as { due: number; succeeded: number });
    expect(summaries.reduce((a, s) => a + s.due, 0)).toBe(5000);
    expect(summaries.reduce((a, s) => a + s.succeeded, 0)).toBe(5000);
    expect(ledger(db)).toEqual({
      charges: 5000,
      distinctKeys: 5000,
      success: 5000,
      pending: 0,
      renewalTxns: 5000,
      events: 5000,
    });
  }, 180_000);

  it('a run killed with SIGKILL mid-way, rerun after the lease: every record charged once, none lost', async () => {
    const t = tempDir('paygate-renewkill-');
    cleanup = t.cleanup;
    const N = 5000;
    const db = await seedDueSubscriptions(t.dir, N, { startedAt: START, dueAt: DUE });
    const first = renew(db, AT);
    // Kill it once it has charged something but not everything.
    const watcher = new Database(db, { readonly: true });
    let seen = 0;
    for (let i = 0; i < 2000 && seen === 0; i++) {
      await new Promise((r) => setTimeout(r, 10));
      seen = (watcher.prepare("SELECT count(*) AS n FROM sandbox_charges WHERE kind = 'charge'").get() as { n: number })
        .n;
    }
    first.kill('SIGKILL');
    watcher.close();
    const killed = await first.done;
    expect(killed.signal).toBe('SIGKILL');
    const mid = ledger(db);
    expect(mid.charges).toBeGreaterThan(0);
    expect(mid.success).toBeLessThan(N);
    // A rerun within the lease leaves the killed run's claims alone…
    const within = await renew(db, AT).done;
    expect(within.code, within.stderr).toBe(0);
    // …and one past it takes them over and completes them through the channel's idempotency.
    const rerun = await renew(db, AFTER_LEASE).done;
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(ledger(db)).toEqual({ charges: N, distinctKeys: N, success: N, pending: 0, renewalTxns: N, events: N });
  }, 180_000);
});
