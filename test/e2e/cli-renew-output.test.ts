import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { track } from '../helpers/children.js';
import { BIN, paygate } from '../helpers/cli.js';
import { TEST_VAULT_KEY } from '../helpers/env.js';
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
    for (const run of runs) expect(run).toMatchObject({ due: 0, succeeded: 0, failed: 0 });
  });

  it('one-shot runs appended to one log (the README cron line) read line by line', () => {
    const log = [1, 2].map(() => paygate(['--db', shop.db, '--json', 'renew'])).map((r) => r.stdout);
    for (const out of log) expect(out.trim().split('\n')).toHaveLength(1);
    expect(jsonLines(log.join(''))).toHaveLength(2);
  });
});
