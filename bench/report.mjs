#!/usr/bin/env node
// Revenue report benchmark (issue 15): `paygate report` over 1,000,000 billing records.
// Run: `npx tsc -p tsconfig.build.json && node bench/report.mjs` (or `npm run bench -- report`).
//  1. seed (a child process): S subscriptions (default 80,000) starting over 24 months, each with a billing
//     record per month — about 1,040,000 records by default, 4% declined and retried, 1% cancelled,
//     1 refund in 100 charges;
//  2. report: the `revenueReport` service over the 24 months, all merchants — median of 5 runs
//     (after one warm-up), and a cold first run in a fresh process;
//  3. baseline: one plain full scan of billing_records (count and sum) — the cost of reading
//     every record once, which no report can beat by much without an index.
// Target (issue 15): the report answers in under 2 s. `--pg postgres://…/emptydb` times it on PostgreSQL too
// (the seeded database copied there with `paygate db copy`).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const SELF = fileURLToPath(import.meta.url);
const DIST = new URL('../dist/', import.meta.url);
const KEY = Buffer.alloc(32, 7).toString('base64');
const MONTH = 30 * 86_400_000;
const START = Date.UTC(2024, 11, 1);
const NOW = Date.UTC(2026, 10, 20);

const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};

async function app(dbPath, now) {
  const { openApp } = await import(new URL('app.js', DIST));
  const { loadConfig } = await import(new URL('config.js', DIST));
  const { FixedClock } = await import(new URL('domain/clock.js', DIST));
  return openApp(loadConfig({ db: dbPath, tz: 'UTC' }, { PAYGATE_VAULT_KEY: KEY }), { clock: new FixedClock(now) });
}

async function seed(dbPath, subs) {
  const ctx = await app(dbPath, START);
  const { createMerchant } = await import(new URL('services/merchants.js', DIST));
  const { createPlan } = await import(new URL('services/plans.js', DIST));
  const m = await createMerchant(ctx, { name: 'Bench Shop' });
  const plan = await createPlan(ctx, m.merchantId, {
    planName: 'Monthly',
    price: '9.99',
    currency: 'USD',
    cycleType: 'MONTHLY',
    cycleLength: 1,
  });
  // Seeding reaches past the store boundary to the SQLite engine's connection: fast bulk inserts.
  const sqlite = ctx.store.connection;
  const sub = sqlite.prepare(
    `INSERT INTO subscriptions (id, code, merchant_id, plan_id, user_id, amount, currency, cycle_type, cycle_length, status,
       anchor_time, start_time, end_time, cancel_time, billing_count, failed_count, total_paid, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, 999, 'USD', 'MONTHLY', 1, ?, ?, ?, ?, ?, 0, 0, 0, ?, ?)`,
  );
  const rec = sqlite.prepare(
    `INSERT INTO billing_records (id, subscription_id, merchant_id, billing_type, amount, currency, scheduled_time, actual_time, status, transaction_id, retry_count, cycle_index, created_at)
     VALUES (?, ?, ?, ?, 999, 'USD', ?, ?, ?, ?, ?, ?, ?)`,
  );
  const txn = sqlite.prepare(
    `INSERT INTO transactions (id, merchant_id, relation_id, payment_type, amount, currency, status, refunded_amount, refund_reserved, checkout_declines, created_at, updated_at)
     VALUES (?, ?, ?, 'RENEWAL', 999, 'USD', 200000, 0, 0, 0, ?, ?)`,
  );
  const refund = sqlite.prepare(
    `INSERT INTO refunds (id, merchant_id, transaction_id, amount, currency, status, created_at, updated_at) VALUES (?, ?, ?, 500, 'USD', 'SUCCEEDED', ?, ?)`,
  );
  let records = 0;
  const CHUNK = 2_000;
  for (let base = 0; base < subs; base += CHUNK) {
    sqlite.transaction(() => {
      for (let i = base; i < Math.min(subs, base + CHUNK); i++) {
        const id = `sub_bench_${String(i).padStart(8, '0')}`;
        const start = START + (i % 24) * MONTH + (i % 1000) * 60_000;
        const cancelled = i % 100 === 0;
        const end = cancelled ? Math.min(NOW - 1, start + 12 * MONTH) : null;
        sub.run(
          id,
          `code_${i}`,
          m.merchantId,
          plan.planId,
          `u${i}`,
          cancelled ? 'CANCELLED' : 'ACTIVE',
          start,
          start,
          end,
          end,
          start,
          end ?? start,
        );
        for (let k = 0; k < 24; k++) {
          const t = start + k * MONTH;
          if (t >= NOW || (end !== null && t >= end)) break;
          const n = records++;
          const declined = n % 25 === 7;
          const txnId = declined ? null : `txn_bench_${n}`;
          rec.run(
            `rec_bench_${n}`,
            id,
            m.merchantId,
            k === 0 ? 'INITIAL' : 'RENEW',
            t,
            t,
            declined ? 'FAILED' : 'SUCCESS',
            txnId,
            0,
            k,
            t,
          );
          if (declined) {
            const r = records++;
            rec.run(
              `rec_bench_${r}`,
              id,
              m.merchantId,
              'RETRY',
              t + 86_400_000,
              t + 86_400_000,
              'SUCCESS',
              `txn_bench_${r}`,
              1,
              k,
              t,
            );
            txn.run(`txn_bench_${r}`, m.merchantId, `rel_${r}`, t, t);
          } else {
            txn.run(txnId, m.merchantId, `rel_${n}`, t, t);
            if (n % 100 === 3) refund.run(`rfd_bench_${n}`, m.merchantId, txnId, t + 3_600_000, t + 3_600_000);
          }
        }
      }
    })();
  }
  await ctx.close();
  process.stdout.write(JSON.stringify({ records }));
}

async function report(dbPath, runs) {
  const ctx = await app(dbPath, NOW);
  const { revenueReport } = await import(new URL('services/report.js', DIST));
  const times = [];
  let months = 0;
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    const r = await revenueReport(ctx, { from: '2024-12', to: '2026-11' });
    times.push(performance.now() - t0);
    months = r.months.length;
  }
  // The baseline scan is the SQLite engine's; on PostgreSQL only the report is timed.
  const sqlite = ctx.store.connection;
  const b0 = performance.now();
  sqlite?.prepare('SELECT count(*) AS n, sum(amount) AS s FROM billing_records').get();
  const scan = sqlite ? performance.now() - b0 : null;
  await ctx.close();
  process.stdout.write(JSON.stringify({ times, months, scan, rss: process.resourceUsage().maxRSS * 1024 }));
}

function child(...args) {
  const r = spawnSync(process.execPath, ['--expose-gc', SELF, ...args], { encoding: 'utf8', maxBuffer: 1 << 20 });
  if (r.status !== 0) throw new Error(`${args[0]} failed: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

const role = process.argv[2];
if (role === '--seed') await seed(process.argv[3], Number(process.argv[4]));
else if (role === '--report') await report(process.argv[3], Number(process.argv[4]));
else {
  const subs = arg('--subs', 80_000);
  const dir = mkdtempSync(join(tmpdir(), 'paygate-bench-report-'));
  try {
    const db = join(dir, 'report.db');
    const s0 = performance.now();
    const { records } = child('--seed', db, String(subs));
    console.log(
      `## report — ${records.toLocaleString('en')} billing records, ${subs.toLocaleString('en')} subscriptions (seeded in ${((performance.now() - s0) / 1000).toFixed(1)} s)`,
    );
    const cold = child('--report', db, '1');
    const warm = child('--report', db, '6');
    const sorted = warm.times.slice(1).sort((a, b) => a - b);
    const median = sorted[Math.floor(sorted.length / 2)];
    console.log(
      `report over ${warm.months} months, all merchants: cold ${cold.times[0].toFixed(0)} ms, warm median ${median.toFixed(0)} ms (runs: ${warm.times.map((t) => t.toFixed(0)).join(', ')} ms)`,
    );
    console.log(
      `baseline: one full scan of billing_records ${warm.scan.toFixed(0)} ms · peak RSS ${(warm.rss / 2 ** 20).toFixed(0)} MiB`,
    );
    console.log(`target < 2000 ms: ${Math.max(cold.times[0], median) < 2000 ? 'met' : 'NOT met'}`);
    // --pg URL: the same database copied into an empty PostgreSQL database (paygate db copy), timed there too.
    const pgUrl = process.argv[process.argv.indexOf('--pg') + 1];
    if (process.argv.includes('--pg') && pgUrl) {
      const bin = fileURLToPath(new URL('../bin/paygate.js', import.meta.url));
      const c = spawnSync(process.execPath, [bin, '--db', db, 'db', 'copy', '--to', pgUrl, '--json'], {
        encoding: 'utf8',
        env: { ...process.env, PAYGATE_VAULT_KEY: KEY },
      });
      if (c.status !== 0) throw new Error(`db copy failed: ${c.stderr}`);
      const pgCold = child('--report', pgUrl, '1');
      const pgWarm = child('--report', pgUrl, '6');
      const pgSorted = pgWarm.times.slice(1).sort((a, b) => a - b);
      const pgMedian = pgSorted[Math.floor(pgSorted.length / 2)];
      console.log(
        `PostgreSQL: cold ${pgCold.times[0].toFixed(0)} ms, warm median ${pgMedian.toFixed(0)} ms (runs: ${pgWarm.times.map((t) => t.toFixed(0)).join(', ')} ms) · target < 2000 ms: ${Math.max(pgCold.times[0], pgMedian) < 2000 ? 'met' : 'NOT met'}`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
