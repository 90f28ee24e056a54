#!/usr/bin/env node
// What PAYs wait on in PostgreSQL, with invoices and without (issue 22). Run:
// `npm run bench -- documents-waits -- --without DIR` (DIR as in bench/documents-cost.mjs).
// For the code before invoices and for this build: one `serve`, autocannon with 50 connections for
// --duration S (default 5) seconds, while pg_stat_activity is sampled every 20 ms; prints PAY/s
// and, of the serve's busy backends seen, the share waiting on each wait event (a lock on a row,
// WAL flush, …) — the why behind a lower PAY rate.
import { createRequire } from 'node:module';
import { pgArg, pgServer } from './pg.mjs';
import { arg, build, createMerchant, HERE, KEY, load, payRequests, start, stop, textArg } from './serve-helpers.mjs';

const require = createRequire(import.meta.url);
const without = textArg('--without');
if (!without) {
  console.error('give the code before invoices: --without DIR (a checkout with its dist built)');
  process.exit(1);
}
const duration = arg('--duration', 5);
const server = await pgServer(pgArg().url);
const VARIANTS = [
  { name: 'without', b: build(without) },
  { name: 'invoices', b: build(HERE) },
];

async function sampled(db, work) {
  const c = new (require('pg').Client)({ connectionString: server.url });
  await c.connect();
  const name = new URL(db).pathname.slice(1);
  const seen = new Map();
  let samples = 0;
  let running = true;
  const sampling = (async () => {
    while (running) {
      const rows = (
        await c.query(
          `SELECT coalesce(wait_event_type || ':' || wait_event, 'on CPU') AS w, count(*)::int AS n FROM pg_stat_activity
           WHERE datname = $1 AND state = 'active' AND pid <> pg_backend_pid() GROUP BY 1`,
          [name],
        )
      ).rows;
      samples++;
      for (const r of rows) seen.set(r.w, (seen.get(r.w) ?? 0) + r.n);
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  const result = await work();
  running = false;
  await sampling;
  await c.end();
  return { result, seen, samples };
}

try {
  console.log(`## What a PAY waits on in PostgreSQL (${server.label}), 50 connections, ${duration} s\n`);
  console.log('| build | PAY/s | busy backends per sample | share of busy backends by wait |');
  console.log('|---|---:|---:|---|');
  for (const v of VARIANTS) {
    const db = await server.createDatabase();
    const next = payRequests(createMerchant(v.b, db));
    const s = await start(
      process.execPath,
      [v.b.bin, 'serve', '--port', '0', '--no-rate-limit', '--no-renew'],
      { PAYGATE_VAULT_KEY: KEY, PAYGATE_DB: db },
      /listening on (http:\/\/\S+)/,
    );
    await load(s.url, next, { duration: 1, connections: 50 });
    const { result, seen, samples } = await sampled(db, () => load(s.url, next, { duration, connections: 50 }));
    await stop(s.proc);
    const total = [...seen.values()].reduce((a, b) => a + b, 0);
    const shares = [...seen.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 5)
      .map(([w, n]) => `${w} ${((n / total) * 100).toFixed(0)}%`)
      .join(', ');
    console.log(`| ${v.name} | ${result.rps.toFixed(0)} | ${(total / samples).toFixed(1)} | ${shares} |`);
  }
  console.log('');
} finally {
  await server.stop();
}
