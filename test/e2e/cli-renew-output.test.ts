import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { track } from '../helpers/children.js';
import { BIN, paygate } from '../helpers/cli.js';
import { TEST_VAULT_KEY } from '../helpers/env.js';
import { interruptWhen } from '../helpers/interrupt.js';
import { seedDueSubscriptions } from '../helpers/seed-renewals.js';
import { shopDatabase, type ShopDatabase } from '../helpers/shop-db.js';

let shop: ShopDatabase;
beforeAll(async () => {
  shop = await shopDatabase();
  expect(paygate(['--db', shop.db, 'merchant', 'create', '--name', 'Renew Shop']).status).toBe(0);
});
afterAll(() => shop.drop());

/** Every line of `text` parsed on its own, as a reader of JSON Lines (a log of runs) does. */
function jsonLines(text: string): Array<Record<string, unknown>> {
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** `renew --every` until it has printed `runs` summaries, then stopped with SIGTERM as systemd does. */
function renewEvery(runs: number): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = track(
      spawn(process.execPath, [BIN, '--db', shop.db, '--json', 'renew', '--every', '* * * * * *'], {
        env: { PATH: process.env.PATH, HOME: process.env.HOME, PAYGATE_VAULT_KEY: TEST_VAULT_KEY },
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString();
      if (stdout.split('"stripeRateLimited"').length > runs) child.kill('SIGTERM');
    });
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

describe('renew --json prints JSON Lines: one compact summary per run', () => {
  it('renew --every: each run is one line that parses on its own', async () => {
    const r = await renewEvery(2);
    expect(r.status, r.stderr).toBe(0);
    const runs = jsonLines(r.stdout);
    expect(runs.length).toBeGreaterThanOrEqual(2);
    for (const run of runs) {
      expect(run).toMatchObject({ due: 0, succeeded: 0, failed: 0 });
      expect(run).not.toHaveProperty('interrupted');
    }
  });

  it('one-shot runs appended to one log (the README cron line) read line by line', () => {
    const log = [1, 2].map(() => paygate(['--db', shop.db, '--json', 'renew'])).map((r) => r.stdout);
    for (const out of log) expect(out.trim().split('\n')).toHaveLength(1);
    expect(jsonLines(log.join(''))).toHaveLength(2);
  });
});

describe('renew --every --json: a failed run leaves a line', () => {
  // It was a note, which --json silences: a run that failed left nothing in the log at all.
  it('an error line on stderr with its code, and the next run goes on', async () => {
    const child = track(
      spawn(process.execPath, [BIN, '--db', shop.db, '--json', 'renew', '--every', '* * * * * *'], {
        env: { PATH: process.env.PATH, HOME: process.env.HOME, PAYGATE_VAULT_KEY: TEST_VAULT_KEY },
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    );
    let stdout = '';
    let stderr = '';
    const waitFor = (check: () => boolean) =>
      new Promise<void>((resolve) => {
        const tick = setInterval(() => {
          if (check()) {
            clearInterval(tick);
            resolve();
          }
        }, 50);
      });
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
    await waitFor(() => stdout.includes('\n'));
    await shop.rows.run('ALTER TABLE billing_records RENAME TO billing_records_away');
    try {
      await waitFor(() => stderr.includes('renewal run failed'));
    } finally {
      await shop.rows.run('ALTER TABLE billing_records_away RENAME TO billing_records');
    }
    const before = stdout.split('\n').length;
    await waitFor(() => stdout.split('\n').length > before);
    child.kill('SIGTERM');
    expect(await closed).toBe(0);
    expect(stderr).toMatch(/^error \d{4}: renewal run failed: /m);
    expect(jsonLines(stdout).length).toBeGreaterThanOrEqual(2);
  });
});

describe('a renewal run stopped by a signal says so', () => {
  const DUE = 4000;
  let big: ShopDatabase;
  beforeAll(async () => {
    big = await shopDatabase();
    await seedDueSubscriptions(big.dir, DUE, {
      startedAt: Date.UTC(2026, 0, 15, 9, 0, 0),
      dueAt: Date.UTC(2026, 1, 15, 9, 0, 0),
      db: big.db,
    });
  }, 120_000);
  afterAll(() => big.drop());

  // Its summary read as a finished run ("due 768" of 4000), exit 0 and all.
  it('SIGINT mid-run: exit 0 (the charges under way were finished) and "interrupted": true beside what it did', async () => {
    const charged = async () => (await big.rows.get<{ n: number }>('SELECT count(*) AS n FROM transactions'))?.n ?? 0;
    const r = await interruptWhen(
      ['--db', big.db, '--json', 'renew', '--at', '2026-02-15 10:00:00'],
      'SIGINT',
      charged,
    );
    expect(r.status, r.stderr).toBe(0);
    const [run, ...more] = jsonLines(r.stdout);
    expect(more).toEqual([]);
    expect(run).toMatchObject({ interrupted: true });
    expect(run?.due).toBeLessThan(DUE);
    expect(run?.succeeded).toBe(await charged());
  });
});

describe('renew --every with a schedule that never fires (SPEC §7: it stays running)', () => {
  // It printed "next run never" and exited 13 at once (nothing held the event loop); under cron, silently.
  it('is refused as 1001 naming --every, exit 1, like a malformed schedule', () => {
    const r = paygate(['--db', shop.db, 'renew', '--every', '0 0 31 2 *']);
    expect([r.status, r.stderr]).toEqual([1, 'error 1001: every: "0 0 31 2 *" never runs: no date matches it\n']);
  });
});

describe('a reader that goes away (paygate … | head)', () => {
  it('ends the command quietly: exit 0, no EPIPE stack trace', async () => {
    const child = track(
      spawn(process.execPath, [BIN, '--db', shop.db, 'renew', '--at', '2030-02-28 10:00:00', '--dry-run'], {
        env: { PATH: process.env.PATH, HOME: process.env.HOME, PAYGATE_VAULT_KEY: TEST_VAULT_KEY },
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    );
    // The read end is closed before the command writes anything, as `head -c 0` would.
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(stderr).not.toMatch(/EPIPE|Unhandled|at .*\(node:/);
    expect(code).toBe(0);
  });
});
