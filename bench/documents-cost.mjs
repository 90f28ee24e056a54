#!/usr/bin/env node
// The cost of documents (issue 22): the PAY and renewal benchmarks with documents on, beside the
// same benchmarks on the code before invoices, in one run, taking turns round by round.
// Run: `npm run bench -- documents-cost -- --without DIR` (add `--pg` for PostgreSQL), where DIR is
// a checkout of the code before invoices with its dist built, for example:
//   git worktree add --detach /tmp/paygate-before 0e8cd3c && ln -s "$PWD/node_modules" /tmp/paygate-before/
//   (cd /tmp/paygate-before && npx tsc -p tsconfig.build.json)
// Three builds/settings take turns (the order reversed every other round, so load hits each alike):
//  - without: DIR's build (no invoices, no customer email);
//  - invoices: this build, no PAYGATE_SMTP_URL: each successful charge gets its invoice and number;
//  - +emails: this build, PAYGATE_SMTP_URL at a loopback sink (bench/smtp-sink.mjs), the merchant's
//    customer emails on with a sender, every payer with an address: each charge also writes its
//    receipt email, and `serve` delivers it meanwhile (the invoice's PDF rendered and attached).
// PAY: one `serve --no-rate-limit --no-renew` per turn, autocannon, 50 connections, --duration S
// (default 5). Renewals: --due N (default 10,000) due subscriptions, runRenewal in --processes P
// processes (default 1; on PostgreSQL they start together), renewals/s over the wall time.
// Options: --rounds R (default 3), --skip-pay, --skip-renewals.
import { spawn, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pgArg, pgServer } from './pg.mjs';
import {
  arg,
  build,
  createMerchant,
  HERE,
  KEY,
  load,
  median,
  payRequests,
  smtpSink,
  start,
  stop,
  textArg,
} from './serve-helpers.mjs';

const require = createRequire(import.meta.url);
const RENEWALS = join(HERE, 'bench/renewals.mjs');
const DUE = Date.UTC(2026, 1, 15, 9, 0, 0);
const without = textArg('--without');
if (!without) {
  console.error('give the code before invoices: --without DIR (a checkout with its dist built)');
  process.exit(1);
}
const builds = { without: build(without), with: build(HERE) };
const opts = {
  duration: arg('--duration', 5),
  connections: arg('--connections', 50),
  rounds: Math.max(1, arg('--rounds', 3)),
  due: arg('--due', 10_000),
  processes: Math.max(1, arg('--processes', 1)),
};
const VARIANTS = [
  { name: 'without', b: builds.without, emails: false },
  { name: 'invoices', b: builds.with, emails: false },
  { name: '+emails', b: builds.with, emails: true },
];
const pg = pgArg();
const server = pg.wanted ? await pgServer(pg.url) : undefined;
const dir = mkdtempSync(join(tmpdir(), 'paygate-bench-doccost-'));
// runRenewal writes emails only when an SMTP URL is configured, and never sends them itself
// (that is `renew`'s pass after it, timed apart as the callback pass is): nothing listens here.
const UNSENT_SMTP = 'smtp://127.0.0.1:9';
const order = (round) => (round % 2 === 0 ? VARIANTS : [...VARIANTS].reverse());

async function newDb(tag) {
  return server ? server.createDatabase() : join(dir, `${tag}-${Math.random().toString(36).slice(2, 8)}.db`);
}

async function payTurns() {
  const results = Object.fromEntries(VARIANTS.map((v) => [v.name, []]));
  const state = {};
  for (const v of VARIANTS) {
    const db = await newDb(v.name);
    state[v.name] = { db, next: payRequests(createMerchant(v.b, db, { emails: v.emails })) };
  }
  for (let round = 0; round < opts.rounds; round++) {
    for (const v of order(round)) {
      const { db, next } = state[v.name];
      const env = { PAYGATE_VAULT_KEY: KEY, ...(server ? { PAYGATE_DB: db } : {}) };
      const sink = v.emails ? await smtpSink() : undefined;
      if (sink) env.PAYGATE_SMTP_URL = sink.url;
      const args = [...(server ? [] : ['--db', db]), 'serve', '--port', '0', '--no-rate-limit', '--no-renew'];
      const s = await start(process.execPath, [v.b.bin, ...args], env, /listening on (http:\/\/\S+)/);
      await load(s.url, next, { duration: 1, connections: opts.connections });
      const r = await load(s.url, next, opts);
      await stop(s.proc);
      results[v.name].push({ ...r, emailed: sink ? await sink.stop() : 0 });
    }
  }
  return results;
}

function child(env, args) {
  const r = spawnSync(process.execPath, [RENEWALS, '--child', ...args], {
    encoding: 'utf8',
    env: { ...process.env, ...env },
    maxBuffer: 1 << 24,
    timeout: 600_000,
  });
  if (r.status !== 0) throw new Error(`renewals ${args[0]} failed: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop());
}

/** The merchant's customer emails on and every subscriber with an address (through SQL: the seed is SQL too). */
async function turnOnEmails(db) {
  const sql = [
    "UPDATE merchants SET email_from = 'billing@shop.example', customer_emails = 'on'",
    "UPDATE subscriptions SET email = 'ada@example.com'",
  ];
  if (server) {
    const c = new (require('pg').Client)({ connectionString: db });
    await c.connect();
    for (const s of sql) await c.query(s);
    await c.end();
  } else {
    const { Database } = await import(new URL('dist/store/sqlite/driver.js', `file://${HERE}/`).href);
    const d = new Database(db);
    for (const s of sql) d.exec(s);
    d.close();
  }
}

/** P engine processes over one database, started together: { ms, count }. */
async function enginesTogether(env, db) {
  const kids = Array.from({ length: opts.processes }, () => {
    const proc = spawn(process.execPath, [RENEWALS, '--child', 'engine-pg', db], { env: { ...process.env, ...env } });
    let out = '';
    let err = '';
    proc.stdout.on('data', (d) => (out += d));
    proc.stderr.on('data', (d) => (err += d));
    const done = new Promise((resolve, reject) =>
      proc.on('exit', (code) =>
        code === 0 ? resolve(JSON.parse(out.trim().split('\n').pop())) : reject(new Error(err)),
      ),
    );
    const ready = new Promise((resolve, reject) => {
      proc.stdout.on('data', () => out.includes('ready\n') && resolve());
      done.catch(reject);
    });
    return { proc, done, ready };
  });
  await Promise.all(kids.map((k) => k.ready));
  for (const k of kids) k.proc.stdin.end('go\n');
  const rs = await Promise.all(kids.map((k) => k.done));
  const ms = Math.max(...rs.map((r) => r.endedAt)) - Math.min(...rs.map((r) => r.startedAt));
  return { ms, count: rs.reduce((n, r) => n + r.count, 0) };
}

async function renewalTurns() {
  const results = Object.fromEntries(VARIANTS.map((v) => [v.name, []]));
  const envOf = (v) => ({ PAYGATE_BENCH_ROOT: v.b.root, PAYGATE_SMTP_URL: v.emails ? UNSENT_SMTP : '' });
  const seeded = {};
  if (server)
    for (const v of VARIANTS) {
      seeded[v.name] = await server.createDatabase();
      child(envOf(v), ['seed-pg', seeded[v.name], opts.due, DUE]);
      if (v.emails) await turnOnEmails(seeded[v.name]);
    }
  for (let round = 0; round < opts.rounds; round++) {
    for (const v of order(round)) {
      let r;
      if (server) {
        const db = await server.createDatabase(seeded[v.name]);
        await (async () => {
          const c = new (require('pg').Client)({ connectionString: db });
          await c.connect();
          await c.query("UPDATE merchants SET notify_url = 'https://shop.example/notify'");
          await c.end();
        })();
        r = await enginesTogether(envOf(v), db);
        await server.dropDatabase(db);
      } else {
        const db = await newDb(v.name);
        child(envOf(v), ['seed', db, opts.due, DUE]);
        if (v.emails) await turnOnEmails(db);
        r = child(envOf(v), ['engine', db]);
      }
      if (r.count !== opts.due) throw new Error(`${v.name}: renewed ${r.count} of ${opts.due}`);
      results[v.name].push({ rate: r.count / (r.ms / 1000), ms: r.ms });
    }
  }
  return results;
}

const pctOf = (a, b) => `${((a / b) * 100).toFixed(0)}%`;
try {
  const engine = server ? `PostgreSQL (${server.label})` : 'SQLite';
  console.log(`## The cost of documents on ${engine}: ${opts.rounds} rounds, turns alternating\n`);
  if (!process.argv.includes('--skip-pay')) {
    const r = await payTurns();
    console.log(`### PAY (${opts.connections} connections, ${opts.duration} s per turn, one serve)\n`);
    console.log('| build | PAY/s per round | median PAY/s | p99 ms per round | median p99 | vs without (PAY/s, p99) |');
    console.log('|---|---|---:|---|---:|---|');
    const base = r.without;
    for (const v of VARIANTS) {
      const rps = r[v.name].map((x) => x.rps);
      const p99 = r[v.name].map((x) => x.p99);
      const ratios = r[v.name].map(
        (x, i) => `${pctOf(x.rps, base[i].rps)} / ${(x.p99 / Math.max(base[i].p99, 1)).toFixed(2)}×`,
      );
      const errors = r[v.name].reduce((n, x) => n + x.errors, 0);
      const emailed = v.emails
        ? `; receipts delivered during the turns: ${r[v.name].map((x) => x.emailed).join(', ')}`
        : '';
      console.log(
        `| ${v.name} | ${rps.map((x) => x.toFixed(0)).join(', ')} | ${median(rps).toFixed(0)} | ${p99.join(', ')} | ${median(p99)} | ${ratios.join('; ')}${errors ? ` (${errors} errors)` : ''}${emailed} |`,
      );
    }
    console.log('');
  }
  if (!process.argv.includes('--skip-renewals')) {
    const r = await renewalTurns();
    const who = server ? `${opts.processes} process(es) started together` : 'one process';
    console.log(`### Renewals (${opts.due.toLocaleString('en')} due, ${who}, a fresh copy per turn)\n`);
    console.log('| build | renewals/s per round | median | vs without per round |');
    console.log('|---|---|---:|---|');
    for (const v of VARIANTS) {
      const rates = r[v.name].map((x) => x.rate);
      const ratios = r[v.name].map((x, i) => pctOf(x.rate, r.without[i].rate));
      console.log(
        `| ${v.name} | ${rates.map((x) => Math.round(x).toLocaleString('en')).join(', ')} | ${Math.round(median(rates)).toLocaleString('en')} | ${ratios.join(', ')} |`,
      );
    }
    console.log('');
  }
} finally {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
}
