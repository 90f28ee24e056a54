#!/usr/bin/env node
// Statements per PAY and per renewal, with documents and without (issue 22), counted in the
// PostgreSQL server's log (`log_statement = all` on each database; a throwaway cluster, whose log
// this can read). Run: `npm run bench -- documents-statements -- --without DIR` (DIR as in
// bench/documents-cost.mjs). Sends --pays N (default 50) PAYs one at a time to one `serve`, and
// renews --due M (default 200) subscriptions in one process, for the code before invoices, with
// invoices, and with invoices and receipt emails. Counts are of statements the server executed
// (BEGIN and COMMIT included), divided by N or M, so per PAY / per renewal.
import { spawnSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pgServer } from './pg.mjs';
import { arg, build, createMerchant, HERE, KEY, payRequests, start, stop, textArg } from './serve-helpers.mjs';

const require = createRequire(import.meta.url);
const without = textArg('--without');
if (!without) {
  console.error('give the code before invoices: --without DIR (a checkout with its dist built)');
  process.exit(1);
}
const pays = arg('--pays', 50);
const due = arg('--due', 200);
const DUE = Date.UTC(2026, 1, 15, 9, 0, 0);
const VARIANTS = [
  { name: 'without', b: build(without), emails: false },
  { name: 'invoices', b: build(HERE), emails: false },
  { name: '+emails', b: build(HERE), emails: true },
];
const server = await pgServer();
if (!server.logFile) throw new Error('needs the throwaway cluster (its log)');

async function sql(db, ...statements) {
  const c = new (require('pg').Client)({ connectionString: db });
  await c.connect();
  for (const s of statements) await c.query(s);
  await c.end();
}

/** Statements the server logged while `work` ran (only databases with log_statement set log any). */
async function counted(work) {
  const from = statSync(server.logFile).size;
  await work();
  await new Promise((r) => setTimeout(r, 500)); // the log is written asynchronously
  const text = readFileSync(server.logFile).subarray(from).toString('utf8');
  const lines = text.split('\n').filter((l) => /LOG:\s+(statement|execute)/.test(l));
  return lines.length;
}

const rows = [];
try {
  for (const v of VARIANTS) {
    const smtp = v.emails ? 'smtp://127.0.0.1:9' : '';
    // PAY: the merchant, then log_statement for the serve's connections only.
    const db = await server.createDatabase();
    const next = payRequests(createMerchant(v.b, db, { emails: v.emails }));
    const name = new URL(db).pathname.slice(1);
    await sql(db, `ALTER DATABASE ${name} SET log_statement = 'all'`);
    // No SMTP listener: serve's email pass claims and retries later, which is part of the count;
    // without PAYGATE_SMTP_URL no email is written at all.
    const env = { PAYGATE_VAULT_KEY: KEY, PAYGATE_DB: db, ...(smtp ? { PAYGATE_SMTP_URL: smtp } : {}) };
    const s = await start(
      process.execPath,
      [v.b.bin, 'serve', '--port', '0', '--no-rate-limit', '--no-renew'],
      env,
      /listening on (http:\/\/\S+)/,
    );
    await fetch(`${s.url}/health`).catch(() => {});
    const payStatements = await counted(async () => {
      for (let i = 0; i < pays; i++) {
        const r = next();
        const res = await fetch(`${s.url}${r.path}`, { method: 'POST', headers: r.headers, body: r.body });
        if (!res.ok) throw new Error(`PAY ${res.status}: ${await res.text()}`);
      }
    });
    const idleStatements = await counted(() => new Promise((r) => setTimeout(r, 3000)));
    await stop(s.proc);

    // Renewals: seeded, then one engine process (bench/renewals.mjs) with log_statement on.
    const rdb = await server.createDatabase();
    const renewEnv = { ...process.env, PAYGATE_BENCH_ROOT: v.b.root, PAYGATE_SMTP_URL: smtp };
    const child = (args, input) =>
      spawnSync(process.execPath, [join(HERE, 'bench/renewals.mjs'), '--child', ...args], {
        encoding: 'utf8',
        env: renewEnv,
        input,
        timeout: 300_000,
      });
    const seeded = child(['seed-pg', rdb, due, DUE]);
    if (seeded.status !== 0) throw new Error(seeded.stderr);
    const rname = new URL(rdb).pathname.slice(1);
    if (v.emails)
      await sql(
        rdb,
        "UPDATE merchants SET email_from = 'billing@shop.example'",
        "UPDATE subscriptions SET email = 'ada@example.com'",
      );
    await sql(
      rdb,
      "UPDATE merchants SET notify_url = 'https://shop.example/notify'",
      `ALTER DATABASE ${rname} SET log_statement = 'all'`,
    );
    const renewStatements = await counted(async () => {
      const r = child(['engine-pg', rdb], 'go\n');
      if (r.status !== 0) throw new Error(r.stderr);
    });
    rows.push([v.name, payStatements / pays, idleStatements / 3, renewStatements / due]);
  }
  console.log(`## Statements per PAY and per renewal on PostgreSQL (${server.label})\n`);
  console.log(
    `${pays} PAYs one at a time to one serve; ${due} renewals in one process (its start-up and claims included).\n`,
  );
  console.log(
    '| build | statements per PAY | serve idle, statements/s (its delivery loops) | statements per renewal |',
  );
  console.log('|---|---:|---:|---:|');
  for (const [n, p, i, r] of rows) console.log(`| ${n} | ${p.toFixed(1)} | ${i.toFixed(1)} | ${r.toFixed(1)} |`);
  console.log('');
} finally {
  await server.stop();
}
