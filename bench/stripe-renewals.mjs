#!/usr/bin/env node
// A 1st-of-the-month renewal run through Stripe (issue 21). Run: `npx tsc -p tsconfig.build.json &&
// node bench/stripe-renewals.mjs [--due N] [--pg [URL]] [--procs P]` (or `npm run bench --
// stripe-renewals`, `… stripe-renewals-pg`).
//
// What it shows: how long `paygate renew` takes for N due renewals of a merchant on Stripe (default
// 10,000) when Stripe allows what it allows a live account — the local stand-in enforcing Stripe's
// live limit, 100 operations per second — and paygate keeps to its default budget for a live key
// (80 calls/s, renewal runs on four fifths of it: 64/s). Reported: wall time, renewals charged,
// Stripe calls per renewal, calls per second the account received over the run (against the
// renewal run's budget), and answers 429. On SQLite one `renew`; with --pg, P `renew` processes
// (default 4) on one database sharing the budget. The stand-in runs in this process (tsx); the
// renewals are seeded as the tests seed them (test/helpers/seed-stripe-renewals.ts). Against
// Stripe itself each call also waits for Stripe's latency; the pace is set by the budget as long
// as 16 calls at once cover it (16 calls of 250 ms each make 64 a second).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pgArg, pgServer } from './pg.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = join(ROOT, 'bin/paygate.js');
const DAY = 86_400_000;
const LIVE_BUDGET = 80;
const RUN_BUDGET = Math.floor(LIVE_BUDGET * 0.8);

const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const due = arg('--due', 10_000);
const pg = pgArg();
const procs = pg.wanted ? arg('--procs', 4) : 1;

const { tsImport } = await import('tsx/esm/api');
const { startStripeStandin } = await tsImport('../test/helpers/stripe-standin/index.ts', import.meta.url);
const { seedStripeRenewals } = await tsImport('../test/helpers/seed-stripe-renewals.ts', import.meta.url);
const { TEST_VAULT_KEY } = await tsImport('../test/helpers/ctx.ts', import.meta.url);

function renew(db, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, '--db', db, '--json', 'renew'], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, PAYGATE_VAULT_KEY: TEST_VAULT_KEY, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (err += c));
    child.on('close', (status) => {
      if (status !== 0) reject(new Error(`renew exited ${status}: ${err}`));
      else resolve(JSON.parse(out));
    });
  });
}

const server = pg.wanted ? await pgServer(pg.url) : undefined;
const dir = mkdtempSync(join(tmpdir(), 'paygate-bench-stripe-renew-'));
const stripe = await startStripeStandin();
try {
  const acct = stripe.createAccount({ live: true });
  const db = server ? await server.createDatabase() : join(dir, 'paygate.db');
  const now = Date.now();
  const seedStart = Date.now();
  await seedStripeRenewals(dir, due, { db, startedAt: now - 31 * DAY, dueAt: now - 60_000, stripe, acct });
  console.log(`seeded ${due} due Stripe renewals in ${((Date.now() - seedStart) / 1000).toFixed(1)} s`);
  acct.resetTraffic();
  const env = { PAYGATE_STRIPE_API_URL: stripe.url };
  const t0 = Date.now();
  const runs = await Promise.all(Array.from({ length: procs }, () => renew(db, env)));
  const wallS = (Date.now() - t0) / 1000;
  const sum = (k) => runs.reduce((n, r) => n + r[k], 0);
  const t = acct.traffic();
  const secs = t.perSecond;
  const span = secs.length > 0 ? secs.at(-1).second - secs[0].second + 1 : 1;
  const perSecond = t.calls / span;
  const engine = server ? `PostgreSQL (${server.label}), ${procs} renew processes` : 'SQLite, one renew';
  console.log(`\n## Stripe renewals — ${engine}\n`);
  console.log(
    '| due | charged | wall time | Stripe calls | calls per renewal | calls/s received | of the run budget (64/s) | busiest second | answered 429 |',
  );
  console.log('|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  console.log(
    `| ${due} | ${sum('succeeded')} | ${wallS.toFixed(1)} s | ${sum('stripeCalls')} | ${(sum('stripeCalls') / Math.max(1, sum('succeeded'))).toFixed(2)} | ${perSecond.toFixed(1)} | ${((100 * perSecond) / RUN_BUDGET).toFixed(0)}% | ${t.busiestSecond} | ${t.limited} |`,
  );
  console.log(
    `\n(${acct.state.intents.size} PaymentIntents at the stand-in; Stripe's live limit 100/s; paygate's budget ${LIVE_BUDGET}/s, renewal runs ${RUN_BUDGET}/s)`,
  );
} finally {
  await stripe.close();
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
}
