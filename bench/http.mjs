#!/usr/bin/env node
// HTTP benchmark (issues 5 and 11). Run: `npx tsc -p tsconfig.build.json && node bench/http.mjs`
// (or `npm run bench -- http`). Options: --duration S (default 10), --connections N (default 50),
// --rounds R (default 3: the servers take turns R times; the table shows each server's median
// round, and every round's ratio is listed, because a shared 2-core machine is noisy).
// SQLite (default): three servers, each in its own process, each hit by autocannon for the same
// time at the same concurrency, one after another on this machine:
//  1. paygate: `paygate serve --no-rate-limit --no-renew`, signed (v2) PAY transactions with the
//     sandbox card 4242…, each with its own requestId/relationId; every success is on disk.
//  2. baseline: a bare fastify route doing one better-sqlite3 INSERT of the same body
//     (WAL, synchronous=FULL) — the floor for "parse a request, write it durably, answer".
//  3. stripe-stateful-mock: POST /v1/charges with an Idempotency-Key (in memory, no durability).
// --pg [URL]: the same on PostgreSQL (a throwaway cluster unless a superuser URL is given), twice:
//  A. one `paygate serve` (PAYGATE_DB=postgres://…) beside one bare fastify route doing one
//     INSERT of the same body through a pg pool of paygate's default size (synchronous_commit=on);
//  B. two `serve` processes on one database beside two baseline processes on one database; two
//     autocannon runs at once, half the connections each, req/s summed and the latency
//     histograms of both merged before the percentiles are read.
// --cpu-prof DIR: each `serve` writes a V8 CPU profile into DIR (read them with
// `node bench/profile-summary.mjs DIR/*.cpuprofile`).
// --merchants N (default 1): the PAYs go round-robin to N merchants. Every paid PAY takes its
// merchant's next invoice number in the unit of work (SPEC §17), so one merchant's PAYs commit one
// after another; with several the PAY path is measured without that one sequence as its bound.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { pgArg, pgServer } from './pg.mjs';
import { payRequests } from './serve-helpers.mjs';

const SELF = fileURLToPath(import.meta.url);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = join(ROOT, 'bin/paygate.js');
const KEY = Buffer.alloc(32, 7).toString('base64');
const require = createRequire(import.meta.url);

const PROF_AT = process.argv.indexOf('--cpu-prof');
const SERVE_NODE_ARGS = PROF_AT > 0 ? ['--cpu-prof', '--cpu-prof-dir', process.argv[PROF_AT + 1]] : [];

const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};

const BASELINE_TABLE =
  'CREATE TABLE IF NOT EXISTS requests (id bigserial PRIMARY KEY, body text NOT NULL, created_at bigint NOT NULL)';

// ---- child mode: the bare fastify + better-sqlite3 baseline server ----
if (process.argv[2] === '--baseline-server') {
  const Fastify = (await import('fastify')).default;
  const { Database } = await import('../dist/store/sqlite/driver.js');
  const db = new Database(process.argv[3]);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.exec(
    'CREATE TABLE IF NOT EXISTS requests (id INTEGER PRIMARY KEY, body TEXT NOT NULL, created_at INTEGER NOT NULL)',
  );
  const insert = db.prepare('INSERT INTO requests (body, created_at) VALUES (?, ?)');
  const app = Fastify();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => done(null, body));
  app.post('/payment/:apiKey/transaction', async (req) => {
    const id = insert.run(req.body, Date.now()).lastInsertRowid;
    return { rtn_code: '0000', rtn_msg: 'success', success: true, data: { id: String(id) } };
  });
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  console.log(`listening on ${url}`);
  process.on('SIGTERM', () => app.close().then(() => process.exit(0)));
} else if (process.argv[2] === '--group-commit-server') {
  // ---- child mode: the group-commit limit on SQLite ----
  // The same INSERT, but the requests of one event-loop turn share one transaction and one fsync
  // (as paygate's writer does): what one durable write per request can reach on this disk.
  const Fastify = (await import('fastify')).default;
  const Database = (await import('better-sqlite3')).default;
  const db = new Database(process.argv[3]);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.exec(
    'CREATE TABLE IF NOT EXISTS requests (id INTEGER PRIMARY KEY, body TEXT NOT NULL, created_at INTEGER NOT NULL)',
  );
  const insert = db.prepare('INSERT INTO requests (body, created_at) VALUES (?, ?)');
  let queue = [];
  const flush = db.transaction((batch) => batch.map((w) => insert.run(w.body, Date.now()).lastInsertRowid));
  const write = (body) =>
    new Promise((resolve) => {
      if (queue.length === 0)
        setImmediate(() => {
          const batch = queue;
          queue = [];
          const ids = flush(batch);
          for (const [i, w] of batch.entries()) w.resolve(ids[i]);
        });
      queue.push({ body, resolve });
    });
  const app = Fastify();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => done(null, body));
  app.post('/payment/:apiKey/transaction', async (req) => {
    const id = await write(req.body);
    return { rtn_code: '0000', rtn_msg: 'success', success: true, data: { id: String(id) } };
  });
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  console.log(`listening on ${url}`);
  process.on('SIGTERM', () => app.close().then(() => process.exit(0)));
} else if (process.argv[2] === '--baseline-pg-server') {
  // ---- child mode: the bare fastify + one PostgreSQL INSERT baseline server ----
  // A pool of paygate's size (PAYGATE_DB_POOL, else its default), synchronous_commit=on as paygate sets it, a named
  // prepared statement, autocommit: one round trip and one durable commit per request.
  const Fastify = (await import('fastify')).default;
  const pg = require('pg');
  const { DEFAULT_POOL_SIZE, parsePoolSize } = await import(
    new URL('../dist/store/postgres/client.js', import.meta.url)
  );
  const max = process.env.PAYGATE_DB_POOL ? parsePoolSize(process.env.PAYGATE_DB_POOL) : DEFAULT_POOL_SIZE;
  const pool = new pg.Pool({ connectionString: process.argv[3], max, options: '-c synchronous_commit=on' });
  const app = Fastify();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => done(null, body));
  app.post('/payment/:apiKey/transaction', async (req) => {
    const r = await pool.query({
      name: 'insert_request',
      text: 'INSERT INTO requests (body, created_at) VALUES ($1, $2) RETURNING id',
      values: [req.body, Date.now()],
    });
    return { rtn_code: '0000', rtn_msg: 'success', success: true, data: { id: String(r.rows[0].id) } };
  });
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  console.log(`listening on ${url}`);
  process.on('SIGTERM', () =>
    app
      .close()
      .then(() => pool.end())
      .then(() => process.exit(0)),
  );
} else {
  await main();
}

function start(cmd, args, env, pattern) {
  const proc = spawn(cmd, args, {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`did not start: ${cmd} ${args.join(' ')}\n${out}`)), 20_000);
    const onData = (d) => {
      if (out.length < 100_000) out += d.toString();
      const m = pattern.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ proc, url: m[1] });
      }
    };
    proc.stdout.on('data', onData);
    proc.stderr.on('data', onData);
    proc.on('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
  });
}

/**
 * CPU time a process has used so far, in ms (Linux /proc; utime + stime at 100 ticks/s): beside a
 * run's requests it gives the server's CPU per request, which the machine's load does not change
 * as much as it changes req/s. Undefined where /proc is not there.
 */
/** [user, system] CPU ms of a process so far. */
function cpuMs(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return [Number(fields[11]) * 10, Number(fields[12]) * 10];
  } catch {
    return undefined;
  }
}

/** The servers' CPU ms per completed request while `run` ran. */
async function withCpu(procs, run) {
  const before = procs.map((p) => cpuMs(p.pid));
  const r = await run();
  const after = procs.map((p) => cpuMs(p.pid));
  const spent = (k) =>
    after.reduce((sum, a, i) => (a === undefined || before[i] === undefined ? NaN : sum + a[k] - before[i][k]), 0);
  const n = Math.max(r.ok + r.errors, 1);
  return { ...r, cpu: (spent(0) + spent(1)) / n, sys: spent(1) / n };
}

async function stop(proc) {
  if (proc.exitCode !== null) return;
  const done = new Promise((r) => proc.on('exit', r));
  proc.kill('SIGTERM');
  await done;
}

/**
 * autocannon against one or more servers at once, the connections split evenly between them.
 * req/s is the sum of each run's completed requests per second; the latency percentiles come
 * from the runs' latency histograms merged into one (every request counted once), not from
 * averaging percentiles.
 */
async function load(urls, requestOf, { duration, connections }) {
  const autocannon = require('autocannon');
  let n = 0;
  const list = Array.isArray(urls) ? urls : [urls];
  const raw = await Promise.all(
    list.map((url, i) =>
      autocannon({
        url,
        connections: Math.floor(connections / list.length) + (i < connections % list.length ? 1 : 0),
        duration,
        skipAggregateResult: true,
        requests: [{ setupRequest: (req) => ({ ...req, ...requestOf(n++) }) }],
      }),
    ),
  );
  const merged = autocannon.aggregateResult(raw, { url: list[0], connections, duration });
  return {
    rps: raw.reduce((sum, r) => sum + r.totalCompletedRequests / Math.max(r.samples, 1), 0),
    p50: merged.latency.p50,
    p99: merged.latency.p99,
    ok: merged['2xx'],
    errors: merged.errors + merged.timeouts + merged.non2xx,
  };
}

function createMerchant(db) {
  const created = spawnSync(
    process.execPath,
    [BIN, '--db', db, '--json', 'merchant', 'create', '--name', 'Bench', '--signature-version', '2'],
    {
      encoding: 'utf8',
      env: { PATH: process.env.PATH, PAYGATE_VAULT_KEY: KEY },
    },
  );
  if (created.status !== 0) throw new Error(created.stderr);
  return JSON.parse(created.stdout);
}

/** One request builder taking turns over several (one per merchant). */
function spreadOver(builders) {
  let n = 0;
  return () => builders[n++ % builders.length]();
}

function median(list) {
  return [...list].sort((a, b) => a.rps - b.rps)[Math.floor(list.length / 2)];
}

function pct(a, b) {
  return `${((a / b) * 100).toFixed(0)}%`;
}

function printTable(rows) {
  console.log(
    '| server (median round by req/s) | req/s | p50 ms | p99 ms | 2xx | errors/non-2xx | server CPU ms/request (of it system) |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|');
  for (const [name, r] of rows)
    console.log(
      `| ${name} | ${r.rps.toFixed(0)} | ${r.p50} | ${r.p99} | ${r.ok} | ${r.errors} | ${Number.isFinite(r.cpu) ? `${r.cpu.toFixed(2)} (sys ${r.sys.toFixed(2)})` : '—'} |`,
    );
}

async function main() {
  if (!existsSync(join(ROOT, 'dist/cli/main.js'))) {
    console.error('build first: npx tsc -p tsconfig.build.json');
    process.exit(1);
  }
  const opts = {
    duration: arg('--duration', 10),
    connections: arg('--connections', 50),
    rounds: Math.max(1, arg('--rounds', 3)),
    merchants: Math.max(1, arg('--merchants', 1)),
  };
  const logLevel = process.env.PAYGATE_LOG_LEVEL ?? 'info';
  const pg = pgArg();
  if (pg.wanted) await mainPg(pg.url, opts, logLevel);
  else await mainSqlite(opts, logLevel);
}

async function mainSqlite({ duration, connections, rounds, merchants }, logLevel) {
  const dir = mkdtempSync(join(tmpdir(), 'paygate-bench-http-'));
  const results = { paygate: [], baseline: [], group: [], stripe: [] };
  try {
    // 1. paygate (one database for every round, as a long-running server would have)
    const dbPath = join(dir, 'paygate.db');
    const payRequest = spreadOver(
      Array.from({ length: merchants }, () => payRequests(createMerchant(dbPath), { payerEmail: false })),
    );
    const run = Date.now().toString(36);
    let seq = 0;
    const chargeRequest = () => {
      const i = seq++;
      return {
        method: 'POST',
        path: '/v1/charges',
        body: `amount=1000&currency=usd&source=tok_visa&description=bench-${i}`,
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: 'Bearer sk_test_bench',
          'idempotency-key': `${run}-${i}`,
        },
      };
    };
    const measure = async (server, requestOf, url) => {
      await load(url ?? server.url, requestOf, { duration: 1, connections }); // warm-up
      const r = await withCpu([server.proc], () => load(url ?? server.url, requestOf, { duration, connections }));
      await stop(server.proc);
      return r;
    };
    for (let round = 0; round < rounds; round++) {
      const pg = await start(
        process.execPath,
        [...SERVE_NODE_ARGS, BIN, '--db', dbPath, 'serve', '--port', '0', '--no-rate-limit', '--no-renew'],
        { PAYGATE_VAULT_KEY: KEY, PAYGATE_LOG_LEVEL: logLevel },
        /listening on (http:\/\/\S+)/,
      );
      results.paygate.push(await measure(pg, payRequest));

      // 2. bare fastify + one durable insert
      const base = await start(
        process.execPath,
        [SELF, '--baseline-server', join(dir, 'baseline.db')],
        {},
        /listening on (http:\/\/\S+)/,
      );
      results.baseline.push(await measure(base, payRequest));

      // 2b. the same insert with group commit: the limit paygate's writer works against
      const group = await start(
        process.execPath,
        [SELF, '--group-commit-server', join(dir, 'group.db')],
        {},
        /listening on (http:\/\/\S+)/,
      );
      results.group.push(await measure(group, payRequest));

      // 3. stripe-stateful-mock
      const mockCli = require.resolve('stripe-stateful-mock/dist/cli.js');
      const port = 20000 + Math.floor(Math.random() * 20000);
      const mock = await start(
        process.execPath,
        [mockCli],
        { PORT: String(port), LOG_LEVEL: 'info' },
        /(Server started on port)/,
      );
      // Its per-request logging would slow it down; we only needed the start line. Drain the pipe.
      mock.proc.stdout.resume();
      results.stripe.push(await measure(mock, chargeRequest, `http://127.0.0.1:${port}`));
    }

    const [paygate, baseline, group, stripe] = [
      median(results.paygate),
      median(results.baseline),
      median(results.group),
      median(results.stripe),
    ];
    console.log(
      `## HTTP: signed PAY transactions (${connections} connections, ${duration} s each, ${rounds} rounds, paygate log level ${logLevel})\n`,
    );
    printTable([
      ['paygate serve (signed PAY, sandbox charge, durable)', paygate],
      ['baseline: fastify + 1 better-sqlite3 insert (WAL, synchronous=FULL)', baseline],
      ['group-commit limit: the same insert, one transaction per event-loop turn', group],
      ['stripe-stateful-mock (charges + Idempotency-Key, in memory)', stripe],
    ]);
    const perRound = (other) => results.paygate.map((r, i) => pct(r.rps, results[other][i].rps)).join(', ');
    console.log(
      `\npaygate / baseline: ${pct(paygate.rps, baseline.rps)} of req/s (target ≥ 60%), p99 ${(paygate.p99 / Math.max(baseline.p99, 1)).toFixed(2)}× (target ≤ 2×); rounds: ${perRound('baseline')}`,
    );
    console.log(
      `paygate / group-commit limit: ${(paygate.rps / group.rps).toFixed(2)} of req/s (target ≥ 0.25); rounds: ${perRound('group')}`,
    );
    console.log(
      `paygate / stripe-stateful-mock: ${(paygate.rps / stripe.rps).toFixed(2)}× the req/s (target ≥ 1.0×), p99 ${(paygate.p99 / Math.max(stripe.p99, 1)).toFixed(2)}×; rounds: ${perRound('stripe')}\n`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * PostgreSQL: one paygate database and one baseline database on the same server, kept for every
 * round; in each round paygate and the baseline take turns, first with one process each, then
 * with two processes each on their one database.
 */
/**
 * What paygate's runs left in its database: every PAY answered 2xx must be there whole (warm-ups
 * add more), SUCCEEDED with its key, its sandbox charge and its invoice, no merchant's invoice
 * number twice (each merchant numbers its own: --merchants N). Throws when not.
 */
async function onDisk(dbUrl, answered) {
  const pg = require('pg');
  const c = new pg.Client({ connectionString: dbUrl });
  await c.connect();
  try {
    const { rows } = await c.query(`SELECT
      (SELECT count(*) FROM transactions) AS transactions,
      (SELECT count(*) FROM transactions WHERE status = 200000) AS succeeded,
      (SELECT count(*) FROM idempotency_keys) AS keys,
      (SELECT count(*) FROM sandbox_charges) AS charges,
      (SELECT count(*) FROM invoices) AS invoices,
      (SELECT count(*) FROM (SELECT DISTINCT merchant_id, number FROM invoices) d) AS numbers,
      (SELECT xact_rollback FROM pg_stat_database WHERE datname = current_database()) AS rollbacks,
      (SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()) AS deadlocks`);
    const n = Object.fromEntries(Object.entries(rows[0]).map(([k, v]) => [k, Number(v)]));
    const whole = [n.succeeded, n.keys, n.charges, n.invoices, n.numbers].every((x) => x === n.transactions);
    if (!whole || n.transactions < answered)
      throw new Error(`paygate's database is not whole: ${JSON.stringify(n)}, ${answered} answered`);
    return `On disk after paygate's runs: ${n.transactions} transactions (${answered} answered in the measured turns, the rest in warm-ups), each SUCCEEDED with its key, its sandbox charge and its invoice, every number once per merchant; the database counted ${n.rollbacks} rolled-back transactions and ${n.deadlocks} deadlocks.\n`;
  } finally {
    await c.end();
  }
}

async function mainPg(givenUrl, { duration, connections, rounds, merchants }, logLevel) {
  const server = await pgServer(givenUrl);
  const procs = [];
  // Both sides get the same pool size: PAYGATE_DB_POOL when set, else paygate's default.
  const poolEnv = process.env.PAYGATE_DB_POOL ? { PAYGATE_DB_POOL: process.env.PAYGATE_DB_POOL } : {};
  try {
    const dbUrl = await server.createDatabase();
    const baseUrl = await server.createDatabase();
    const payRequest = spreadOver(
      Array.from({ length: merchants }, () => payRequests(createMerchant(dbUrl), { payerEmail: false })),
    );
    const pg = require('pg');
    const c = new pg.Client({ connectionString: baseUrl });
    await c.connect();
    await c.query(BASELINE_TABLE);
    await c.end();

    const startMany = (n, make) =>
      Promise.all(Array.from({ length: n }, make)).then((list) => {
        procs.push(...list);
        return list;
      });
    const serve = () =>
      start(
        process.execPath,
        [...SERVE_NODE_ARGS, BIN, 'serve', '--port', '0', '--no-rate-limit', '--no-renew'],
        { PAYGATE_DB: dbUrl, PAYGATE_VAULT_KEY: KEY, PAYGATE_LOG_LEVEL: logLevel, ...poolEnv },
        /listening on (http:\/\/\S+)/,
      );
    const baseline = () =>
      start(process.execPath, [SELF, '--baseline-pg-server', baseUrl], poolEnv, /listening on (http:\/\/\S+)/);
    let answered = 0;
    const measure = async (servers) => {
      const urls = servers.map((s) => s.url);
      await load(urls, payRequest, { duration: 1, connections }); // warm-up
      const r = await withCpu(
        servers.map((s) => s.proc),
        () => load(urls, payRequest, { duration, connections }),
      );
      await Promise.all(servers.map((s) => stop(s.proc)));
      return r;
    };

    console.log(
      `## HTTP on PostgreSQL: signed PAY transactions to ${merchants} merchant(s) (${connections} connections, ${duration} s each, ${rounds} rounds, paygate log level ${logLevel})\n`,
    );
    console.log(`Server: ${server.label}.\n`);
    for (const n of [1, 2]) {
      const results = { paygate: [], baseline: [] };
      for (let round = 0; round < rounds; round++) {
        results.paygate.push(await measure(await startMany(n, serve)));
        results.baseline.push(await measure(await startMany(n, baseline)));
      }
      const [p, b] = [median(results.paygate), median(results.baseline)];
      const what =
        n === 1
          ? 'one process each'
          : `${n} processes each on one database, ${connections / n} connections per process, req/s summed, latencies merged`;
      console.log(`### ${what}\n`);
      printTable([
        [`paygate serve ×${n} (signed PAY, sandbox charge, durable)`, p],
        [`baseline ×${n}: fastify + 1 INSERT (pg pool, synchronous_commit=on)`, b],
      ]);
      const rps = results.paygate.map((r, i) => pct(r.rps, results.baseline[i].rps)).join(', ');
      const p99 = results.paygate
        .map((r, i) => `${(r.p99 / Math.max(results.baseline[i].p99, 1)).toFixed(2)}×`)
        .join(', ');
      console.log(
        `\npaygate / baseline (×${n}): ${pct(p.rps, b.rps)} of req/s (target ≥ 25%), p99 ${(p.p99 / Math.max(b.p99, 1)).toFixed(2)}× (target ≤ 4×); rounds: ${rps}; p99 rounds: ${p99}\n`,
      );
      answered += [...results.paygate].reduce((sum, r) => sum + r.ok, 0);
    }
    console.log(await onDisk(dbUrl, answered));
  } finally {
    await Promise.all(procs.map((p) => stop(p.proc)));
    await server.stop();
  }
}
