#!/usr/bin/env node
// 20,000 renewals issue 20,000 invoices with no gap (issue 22). Run: `npm run bench -- invoices`
// (SQLite) or `npm run bench -- invoices-pg` (PostgreSQL). Seeds --due N (default 20,000) due
// monthly subscriptions of one merchant (bench/renewals.mjs's seed), then starts --processes P
// (default 4) `paygate renew --at …` processes together, again until nothing is due, and checks
// that the merchant's invoice numbers are exactly 1..N, each once, one per renewal. It prints the
// time and exits non-zero on a gap, a duplicate, a missing invoice or when --limit S (default
// 240) seconds pass first.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pgArg, pgServer } from './pg.mjs';
import { arg, build, HERE, KEY } from './serve-helpers.mjs';

const require = createRequire(import.meta.url);
const due = arg('--due', 20_000);
const processes = Math.max(1, arg('--processes', 4));
const limitMs = arg('--limit', 240) * 1000;
const DUE = Date.UTC(2026, 1, 15, 9, 0, 0);
const AT = '2026-02-15 10:00:00';
const b = build(HERE);
const pg = pgArg();
const server = pg.wanted ? await pgServer(pg.url) : undefined;
const dir = mkdtempSync(join(tmpdir(), 'paygate-bench-invoices-'));
const deadline = Date.now() + limitMs;
const running = new Set();

/** Rows of one SQL query on either engine. */
async function query(db, sql) {
  if (server) {
    const c = new (require('pg').Client)({ connectionString: db });
    await c.connect();
    try {
      return (await c.query(sql)).rows;
    } finally {
      await c.end();
    }
  }
  const { Database } = await import(new URL('dist/store/sqlite/driver.js', `file://${HERE}/`).href);
  const d = new Database(db, { readonly: true });
  try {
    return d.prepare(sql).all();
  } finally {
    d.close();
  }
}

function renew(db) {
  const env = { PATH: process.env.PATH, PAYGATE_VAULT_KEY: KEY, ...(server ? { PAYGATE_DB: db } : {}) };
  const args = [b.bin, ...(server ? [] : ['--db', db]), 'renew', '--at', AT, '--json'];
  const proc = spawn(process.execPath, args, { env });
  running.add(proc);
  let out = '';
  let err = '';
  proc.stdout.on('data', (d) => (out += d));
  proc.stderr.on('data', (d) => (err += d));
  const timer = setTimeout(() => proc.kill('SIGKILL'), Math.max(1, deadline - Date.now()));
  return new Promise((resolve, reject) =>
    proc.on('close', (code, signal) => {
      clearTimeout(timer);
      running.delete(proc);
      if (code === 0) resolve(JSON.parse(out));
      else
        reject(new Error(`renew ${signal ? `killed (${signal}: past the --limit)` : `exited ${code}`}: ${err.trim()}`));
    }),
  );
}

const stillDue = async (db) =>
  Number(
    (
      await query(db, `SELECT count(*) AS n FROM billing_records WHERE status = 'PENDING' AND scheduled_time <= ${DUE}`)
    )[0].n,
  );

/** Every problem with the invoice numbers: empty when they are exactly 1..due, once each, one per renewal. */
async function problems(db) {
  const rows = await query(db, 'SELECT merchant_id AS m, number FROM invoices');
  const renewals = Number(
    (await query(db, "SELECT count(*) AS n FROM transactions WHERE payment_type = 'RENEWAL' AND status = 200000"))[0].n,
  );
  const found = [];
  if (renewals !== due) found.push(`${renewals} successful renewals, not ${due}`);
  if (rows.length !== renewals) found.push(`${rows.length} invoices for ${renewals} successful renewals`);
  const byMerchant = new Map();
  for (const r of rows) byMerchant.set(r.m, [...(byMerchant.get(r.m) ?? []), Number(/(\d+)$/.exec(r.number)?.[1])]);
  for (const [m, nums] of byMerchant) {
    const seen = new Set(nums);
    if (seen.size !== nums.length) found.push(`${m}: ${nums.length - seen.size} duplicate numbers`);
    const missing = [];
    for (let n = 1; n <= seen.size && missing.length < 10; n++) if (!seen.has(n)) missing.push(n);
    if (missing.length > 0) found.push(`${m}: numbers missing from 1..${seen.size}: ${missing.join(', ')}…`);
    const max = Math.max(...nums);
    if (max !== nums.length) found.push(`${m}: highest number ${max} for ${nums.length} invoices`);
  }
  return { found, merchants: byMerchant.size, invoices: rows.length };
}

let failed = false;
try {
  const db = server ? await server.createDatabase() : join(dir, 'paygate.db');
  const seed = spawnSync(
    process.execPath,
    [join(HERE, 'bench/renewals.mjs'), '--child', server ? 'seed-pg' : 'seed', db, due, DUE],
    {
      encoding: 'utf8',
      env: { ...process.env, PAYGATE_BENCH_ROOT: HERE },
      timeout: 300_000,
    },
  );
  if (seed.status !== 0) throw new Error(`seed failed: ${seed.stderr}`);
  const t0 = performance.now();
  let passes = 0;
  const charged = [];
  while ((await stillDue(db)) > 0) {
    if (Date.now() > deadline) throw new Error(`still due after ${limitMs / 1000} s`);
    passes++;
    const runs = await Promise.all(Array.from({ length: processes }, () => renew(db)));
    charged.push(runs.map((r) => r.succeeded).join(' / '));
  }
  const s = (performance.now() - t0) / 1000;
  const { found, merchants, invoices } = await problems(db);
  const engine = server ? `PostgreSQL (${server.label})` : 'SQLite';
  console.log(`## ${due.toLocaleString('en')} renewals, ${processes} \`renew\` processes at once, on ${engine}\n`);
  console.log(
    `${passes} pass(es), charged per process: ${charged.join('; ')}; ${(s).toFixed(1)} s, ${Math.round(due / s).toLocaleString('en')} renewals/s`,
  );
  if (found.length > 0) {
    failed = true;
    console.log(`FAILED: ${found.join('; ')}`);
  } else
    console.log(
      `${invoices.toLocaleString('en')} invoices over ${merchants} merchant(s), numbered exactly 1..${invoices.toLocaleString('en')}: no gap, no duplicate\n`,
    );
} catch (e) {
  failed = true;
  console.log(`FAILED: ${e instanceof Error ? e.message : String(e)}`);
} finally {
  for (const p of running) p.kill('SIGKILL');
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
