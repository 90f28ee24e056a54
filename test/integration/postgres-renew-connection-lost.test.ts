import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { openApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { FixedClock } from '../../src/domain/clock.js';
import { runRenewal } from '../../src/services/renew/index.js';
import { TEST_VAULT_KEY, tempDir } from '../helpers/env.js';
import { startCutProxy } from '../helpers/pg-cut-proxy.js';
import { pgAvailable, usePgDatabase } from '../helpers/postgres.js';
import { seedDueSubscriptions } from '../helpers/seed-renewals.js';

const database = usePgDatabase();
const cleanups: Array<() => unknown> = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

const STARTED = Date.UTC(2026, 0, 15, 9, 0, 0);
const DUE = Date.UTC(2026, 1, 15, 9, 0, 0);

async function renewalsRecorded(url: string): Promise<number> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const r = await c.query(
      "SELECT count(*)::int AS n FROM billing_records WHERE billing_type = 'RENEW' AND status = 'SUCCESS'",
    );
    return (r.rows[0] as { n: number }).n;
  } finally {
    await c.end();
  }
}

describe.skipIf(!pgAvailable())('a renewal run that loses its PostgreSQL connection part-way', () => {
  // It said "the database connection was lost; nothing was written" (the words of the one unit
  // of work cut off) while the batches before were recorded and stay.
  it('says the run stopped, that what it did is kept and that a next run finishes it', async () => {
    const tmp = tempDir();
    cleanups.push(tmp.cleanup);
    await seedDueSubscriptions(tmp.dir, 3000, { startedAt: STARTED, dueAt: DUE, db: database.url });
    let cut = false;
    const proxy = await startCutProxy(database.url);
    cleanups.push(() => (cut ? undefined : proxy.close()));
    const open = (url: string, at: number) =>
      openApp(loadConfig({ db: url, tz: 'UTC' }, { PAYGATE_VAULT_KEY: TEST_VAULT_KEY }), { clock: new FixedClock(at) });
    const ctx = await open(proxy.url, DUE + 3_600_000);
    cleanups.push(() => ctx.close());

    // Once a batch is recorded, the server goes away for the run (as in a restart or a network
    // cut): every connection is cut and new ones are refused.
    let watching = true;
    const cutAfterFirstBatch = (async () => {
      while (watching && (await renewalsRecorded(database.url)) === 0) await new Promise((r) => setTimeout(r, 10));
      if (!watching) return;
      cut = true;
      await proxy.close();
    })();
    const e = await runRenewal(ctx, { deliverCallbacks: false }).then(
      () => undefined,
      (x: unknown) => x,
    );
    watching = false;
    await cutAfterFirstBatch;

    expect(cut).toBe(true);
    const kept = await renewalsRecorded(database.url);
    expect(kept).toBeGreaterThan(0);
    expect(e).toBeInstanceOf(Error);
    const message = (e as Error).message;
    // (A COMMIT cut in flight cannot be asked about: that one unit's fate is 'unknown'.)
    expect(message).not.toMatch(/nothing was written/);
    expect(message).toMatch(
      /^the renewal run stopped: the database connection was lost( while committing [^.]*)?\. What it did before is kept \(\d+ renewals charged, \d+ declined\); run renew again to finish the rest \(a record it still held waits for its lease, at most 10 minutes\)/,
    );

    // As it says: a run after the lease charges the rest, once each.
    const again = await open(database.url, DUE + 3_600_000 + 11 * 60_000);
    cleanups.push(() => again.close());
    const rest = await runRenewal(again, { deliverCallbacks: false });
    expect(kept + rest.succeeded).toBe(3000);
    expect(await renewalsRecorded(database.url)).toBe(3000);
  });
});
