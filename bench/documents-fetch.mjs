#!/usr/bin/env node
// PAY latency while invoice PDFs are fetched (issue 22). Run: `npm run bench -- documents-fetch`
// (SQLite) or `npm run bench -- documents-fetch-pg`. One `serve --no-rate-limit --no-renew`, one
// merchant with --invoices N (default 200) paid invoices; then turns of --duration S (default 10)
// seconds, --rounds R (default 3) times each, alternating:
//  - idle: PAY at a fixed --rate (default 50/s, 10 connections; fixed so the two turns carry the
//    same PAY load), nothing else;
//  - fetching: the same PAY load while --fetchers F (default 1) clients, each in its own process,
//    fetch a random invoice's PDF (`/invoice/{token}/pdf`) and then its page in a loop.
// The PDF renders on paygate's worker thread; the figure is PAY's p99 in the second turn against
// the first (target: within 2×).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pgArg, pgServer } from './pg.mjs';
import { arg, build, createMerchant, HERE, KEY, median, payRequests, start, stop } from './serve-helpers.mjs';

const require = createRequire(import.meta.url);

if (process.argv[2] === '--fetcher') {
  // Child: fetch PDFs and pages of the given tokens until SIGTERM, then report what it got.
  const [base, list] = [process.argv[3], process.argv[4].split(',')];
  const times = [];
  const statuses = {};
  let stopping = false;
  process.on('SIGTERM', () => (stopping = true));
  while (!stopping) {
    const token = list[Math.floor(Math.random() * list.length)];
    for (const path of [`/invoice/${token}/pdf`, `/invoice/${token}`]) {
      const t = performance.now();
      const res = await fetch(`${base}${path}`);
      await res.arrayBuffer();
      if (path.endsWith('/pdf')) times.push(performance.now() - t);
      statuses[res.status] = (statuses[res.status] ?? 0) + 1;
    }
  }
  times.sort((a, b) => a - b);
  console.log(JSON.stringify({ pdfs: times.length, p50: times[Math.floor(times.length / 2)] ?? 0, statuses }));
  process.exit(0);
}

const opts = {
  duration: arg('--duration', 10),
  rounds: Math.max(1, arg('--rounds', 3)),
  rate: arg('--rate', 50),
  fetchers: Math.max(1, arg('--fetchers', 1)),
  invoices: arg('--invoices', 200),
};
const b = build(HERE);
const pg = pgArg();
const server = pg.wanted ? await pgServer(pg.url) : undefined;
const dir = mkdtempSync(join(tmpdir(), 'paygate-bench-docfetch-'));
let serve;

async function tokens(db) {
  const sql = 'SELECT token FROM invoices';
  if (server) {
    const c = new (require('pg').Client)({ connectionString: db });
    await c.connect();
    const rows = (await c.query(sql)).rows;
    await c.end();
    return rows.map((r) => r.token);
  }
  const { Database } = await import(new URL('dist/store/sqlite/driver.js', `file://${HERE}/`).href);
  const d = new Database(db, { readonly: true });
  const rows = d.prepare(sql).all();
  d.close();
  return rows.map((r) => r.token);
}

async function payLoad(url, next, duration, rate) {
  const autocannon = require('autocannon');
  const r = await autocannon({
    url,
    connections: 10,
    overallRate: rate,
    duration,
    requests: [{ setupRequest: (req) => ({ ...req, ...next() }) }],
  });
  return {
    p50: r.latency.p50,
    p99: r.latency.p99,
    max: r.latency.max,
    ok: r['2xx'],
    errors: r.errors + r.timeouts + r.non2xx,
  };
}

function fetcher(url, list) {
  const proc = spawn(process.execPath, [fileURLToPath(import.meta.url), '--fetcher', url, list.join(',')]);
  let out = '';
  proc.stdout.on('data', (d) => (out += d));
  const done = new Promise((resolve) => proc.on('close', () => resolve(JSON.parse(out.trim() || '{}'))));
  return {
    stop() {
      proc.kill('SIGTERM');
      return done;
    },
  };
}

try {
  const db = server ? await server.createDatabase() : join(dir, 'paygate.db');
  const next = payRequests(createMerchant(b, db));
  const env = { PAYGATE_VAULT_KEY: KEY, ...(server ? { PAYGATE_DB: db } : {}) };
  const args = [b.bin, ...(server ? [] : ['--db', db]), 'serve', '--port', '0', '--no-rate-limit', '--no-renew'];
  serve = await start(process.execPath, args, env, /listening on (http:\/\/\S+)/);
  const autocannon = require('autocannon');
  await autocannon({
    url: serve.url,
    connections: 10,
    amount: opts.invoices,
    requests: [{ setupRequest: (req) => ({ ...req, ...next() }) }],
  });
  const list = await tokens(db);
  const turns = { idle: [], fetching: [] };
  const fetched = [];
  for (let round = 0; round < opts.rounds; round++) {
    for (const kind of round % 2 === 0 ? ['idle', 'fetching'] : ['fetching', 'idle']) {
      const fs = kind === 'fetching' ? Array.from({ length: opts.fetchers }, () => fetcher(serve.url, list)) : [];
      turns[kind].push(await payLoad(serve.url, next, opts.duration, opts.rate));
      if (fs.length > 0) fetched.push(await Promise.all(fs.map((f) => f.stop())));
    }
  }
  const engine = server ? `PostgreSQL (${server.label})` : 'SQLite';
  console.log(`## PAY latency while invoice PDFs are fetched, on ${engine}\n`);
  console.log(
    `PAY at ${opts.rate}/s (10 connections), ${opts.duration} s per turn, ${opts.rounds} rounds, turns alternating; ${opts.fetchers} fetching client(s), ${list.length} invoices to pick from.\n`,
  );
  console.log(
    '| turn | PAY p50 ms per round | PAY p99 ms per round | max ms | PAY 2xx / errors | PDFs fetched (median ms each) |',
  );
  console.log('|---|---|---|---|---|---|');
  for (const kind of ['idle', 'fetching']) {
    const t = turns[kind];
    const pdfs =
      kind === 'fetching'
        ? fetched.map((f) => f.map((x) => `${x.pdfs} (${x.p50.toFixed(0)})`).join('+')).join(', ')
        : '';
    console.log(
      `| ${kind} | ${t.map((x) => x.p50).join(', ')} | ${t.map((x) => x.p99).join(', ')} | ${t.map((x) => x.max).join(', ')} | ${t.reduce((n, x) => n + x.ok, 0)} / ${t.reduce((n, x) => n + x.errors, 0)} | ${pdfs} |`,
    );
  }
  const ratio = median(turns.fetching.map((x) => x.p99)) / Math.max(1, median(turns.idle.map((x) => x.p99)));
  const statuses = fetched
    .flat()
    .map((x) => JSON.stringify(x.statuses))
    .join(' ');
  console.log(
    `\nPAY p99 fetching / idle (medians): **${ratio.toFixed(2)}×** (target ≤ 2×); fetch statuses: ${statuses}\n`,
  );
} finally {
  if (serve) await stop(serve.proc);
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
}
