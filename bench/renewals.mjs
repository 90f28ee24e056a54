#!/usr/bin/env node
// Renewal engine benchmark (issue 4). Run: `npx tsc -p tsconfig.build.json && node bench/renewals.mjs`
// (or `npm run bench -- renewals`). Every scenario runs in its own child process so its peak RSS
// (process.resourceUsage().maxRSS) is its own; databases are seeded by a separate child first.
//  1. engine: `runRenewal` over N due subscriptions (default 100,000) — renewals/s; then, timed
//             apart, the callback pass `paygate renew` runs after it;
//  2. raw:    the same row writes (sandbox charge, RENEWAL transaction, record settle, next
//             record, subscription counters, outbox event) with plain prepared statements, same
//             pragmas, committed in batches of the engine's batch size — rows/s baseline;
//  3. idle:   `runRenewal` with M subscriptions (default 1,000,000) and none due — run time.
// Options: --due N  --idle M
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const SELF = fileURLToPath(import.meta.url);
const DIST = new URL('../dist/', import.meta.url);
const KEY = Buffer.alloc(32, 7).toString('base64');
const START = Date.UTC(2026, 0, 15, 9, 0, 0);
const DUE = Date.UTC(2026, 1, 15, 9, 0, 0);
const RUN_AT = Date.UTC(2026, 1, 15, 10, 0, 0);

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

/** Child: seed `count` ACTIVE monthly subscriptions, their RENEW due at `dueAt`. */
async function seed(dbPath, count, dueAt) {
  const ctx = await app(dbPath, START);
  const { createMerchant } = await import(new URL('services/merchants.js', DIST));
  const { createPlan } = await import(new URL('services/plans.js', DIST));
  const m = await createMerchant(ctx, { name: 'Bench Shop' });
  const plan = await createPlan(ctx, m.merchantId, { planName: 'Monthly', price: '9.99', currency: 'USD', cycleType: 'MONTHLY', cycleLength: 1 });
  const panEnc = ctx.vault.encrypt('4242424242424242');
  // Seeding reaches past the store boundary to the SQLite engine's connection: fast bulk inserts.
  const sqlite = ctx.store.connection;
  const card = sqlite.prepare(`INSERT INTO cards (id, merchant_id, pan_enc, bin, last4, brand, exp_month, exp_year, created_at) VALUES (?, ?, ?, '424242', '4242', 'Visa', 12, 2099, ?)`);
  const sub = sqlite.prepare(
    `INSERT INTO subscriptions (id, code, merchant_id, plan_id, user_id, card_id, amount, currency, cycle_type, cycle_length, status,
       anchor_time, paid_through, start_time, billing_count, failed_count, total_paid, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, 999, 'USD', 'MONTHLY', 1, 'ACTIVE', ?, ?, ?, 1, 0, 999, ?, ?)`,
  );
  const rec = sqlite.prepare(
    `INSERT INTO billing_records (id, subscription_id, merchant_id, billing_type, amount, currency, scheduled_time, status, retry_count, cycle_index, created_at)
     VALUES (?, ?, ?, 'RENEW', 999, 'USD', ?, 'PENDING', 0, 1, ?)`,
  );
  const CHUNK = 50_000;
  for (let base = 0; base < count; base += CHUNK) {
    sqlite.transaction(() => {
      for (let i = base; i < Math.min(count, base + CHUNK); i++) {
        const n = String(i).padStart(8, '0');
        card.run(`crd_b${n}`, m.merchantId, panEnc, START);
        sub.run(`sub_b${n}`, `SCB${n}`, m.merchantId, plan.planId, `user-${i}`, `crd_b${n}`, START, dueAt, START, START, START);
        rec.run(`rec_b${n}`, `sub_b${n}`, m.merchantId, dueAt, START);
      }
    })();
  }
  await ctx.close();
}

/** Through the store, so it works on either engine. */
async function setNotifyUrl(ctx, notifyUrl) {
  const merchants = await ctx.store.listMerchants();
  await ctx.store.transaction(async (tx) => {
    for (const m of merchants) await tx.updateMerchant(m.id, { notifyUrl });
  });
}

/** Child: the engine over everything due. */
async function engine(dbPath) {
  const ctx = await app(dbPath, RUN_AT);
  const { runRenewal } = await import(new URL('services/renew/index.js', DIST));
  const { deliverDue } = await import(new URL('notify/deliver.js', DIST));
  // The renewals alone, like the raw baseline; then the callback pass `paygate renew` runs after
  // them, timed on its own. An event with no notifyUrl anywhere is not written, so the merchant
  // has one during the run (an event per renewal, as in the raw baseline) and none by the pass,
  // which retires every event as DEAD in bulk: no network in a benchmark.
  await setNotifyUrl(ctx, 'https://shop.example/notify');
  const t0 = performance.now();
  const s = await runRenewal(ctx, { deliverCallbacks: false });
  const ms = performance.now() - t0;
  await setNotifyUrl(ctx, null);
  const t1 = performance.now();
  const d = await deliverDue(ctx, { now: RUN_AT });
  const deliveryMs = performance.now() - t1;
  await ctx.close();
  return { ms, deliveryMs, retired: d.dead, count: s.succeeded, summary: s };
}

/** Child: the raw SQLite write rate of the same rows, same pragmas (openSqlite), same batch size. */
async function raw(dbPath) {
  const { openSqlite } = await import(new URL('store/sqlite/client.js', DIST));
  const { BATCH_SIZE } = await import(new URL('services/renew/run.js', DIST));
  const sqlite = openSqlite(dbPath);
  const ids = sqlite.prepare("SELECT id, subscription_id AS sid, merchant_id AS mid FROM billing_records WHERE status = 'PENDING'").all();
  const charge = sqlite.prepare(`INSERT INTO sandbox_charges (id, idempotency_key, kind, amount, currency, card_bin, card_last4, customer_present, outcome, created_at, updated_at)
    VALUES (?, ?, 'charge', 999, 'USD', '424242', '4242', 0, 'approved', ?, ?)`);
  const txn = sqlite.prepare(`INSERT INTO transactions (id, merchant_id, payment_type, status, amount, currency, subscription_id, billing_record_id, created_at, updated_at)
    VALUES (?, ?, 'RENEWAL', 200000, 999, 'USD', ?, ?, ?, ?)`);
  const settle = sqlite.prepare("UPDATE billing_records SET status = 'SUCCESS', actual_time = ?, transaction_id = ? WHERE id = ?");
  const next = sqlite.prepare(`INSERT INTO billing_records (id, subscription_id, merchant_id, billing_type, amount, currency, scheduled_time, status, retry_count, cycle_index, created_at)
    VALUES (?, ?, ?, 'RENEW', 999, 'USD', ?, 'PENDING', 0, 2, ?)`);
  const subUpd = sqlite.prepare('UPDATE subscriptions SET billing_count = billing_count + 1, total_paid = total_paid + 999, paid_through = ?, updated_at = ? WHERE id = ?');
  const evt = sqlite.prepare(`INSERT INTO outbox_events (id, merchant_id, kind, event_type, subscription_id, payload, status, attempts, next_attempt_at, created_at)
    VALUES (?, ?, 'SUBSCRIPTION', 'RENEW_SUCCEEDED', ?, ?, 'PENDING', 0, ?, ?)`);
  const payload = JSON.stringify({ notifyType: 'SUBSCRIPTION', eventType: 'RENEW_SUCCEEDED', amount: '9.99' });
  const t0 = performance.now();
  for (let b = 0; b < ids.length; b += BATCH_SIZE) {
    sqlite.transaction(() => {
      for (const r of ids.slice(b, b + BATCH_SIZE)) {
        charge.run(`ch_${r.id}`, r.id, RUN_AT, RUN_AT);
        txn.run(`txn_${r.id}`, r.mid, r.sid, r.id, RUN_AT, RUN_AT);
        settle.run(RUN_AT, `txn_${r.id}`, r.id);
        next.run(`rec_n${r.id}`, r.sid, r.mid, RUN_AT + 28 * 86_400_000, RUN_AT);
        subUpd.run(RUN_AT + 28 * 86_400_000, RUN_AT, r.sid);
        evt.run(`evt_${r.id}`, r.mid, r.sid, payload, RUN_AT, RUN_AT);
      }
    }).immediate();
  }
  const ms = performance.now() - t0;
  sqlite.close();
  return { ms, count: ids.length };
}

/** Child: a run with nothing due (the subscriptions' records fall a month later). */
async function idle(dbPath) {
  const t0 = performance.now();
  const ctx = await app(dbPath, RUN_AT);
  const openMs = performance.now() - t0;
  const { runRenewal } = await import(new URL('services/renew/index.js', DIST));
  const t1 = performance.now();
  const s = await runRenewal(ctx);
  const ms = performance.now() - t1;
  // A second run, warm, is what `--every` / serve pay each minute.
  const t2 = performance.now();
  await runRenewal(ctx);
  const warmMs = performance.now() - t2;
  await ctx.close();
  return { ms, warmMs, openMs, count: s.due };
}

function child(kind, dbPath, extra = []) {
  const r = spawnSync(process.execPath, [SELF, '--child', kind, dbPath, ...extra], { encoding: 'utf8', maxBuffer: 1 << 24, timeout: 900_000 });
  if (r.status !== 0) throw new Error(`${kind} failed: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop());
}

if (process.argv[2] === '--child') {
  const [, , , kind, dbPath, a, b] = process.argv;
  let out = {};
  if (kind === 'seed') await seed(dbPath, Number(a), Number(b));
  else if (kind === 'engine') out = await engine(dbPath);
  else if (kind === 'raw') out = await raw(dbPath);
  else if (kind === 'idle') out = await idle(dbPath);
  out.maxRssMiB = process.resourceUsage().maxRSS / 1024;
  process.stdout.write(JSON.stringify(out) + '\n');
} else {
  const due = arg('--due', 100_000);
  const idleN = arg('--idle', 1_000_000);
  const dir = mkdtempSync(join(tmpdir(), 'paygate-bench-renew-'));
  try {
    const dbA = join(dir, 'engine.db');
    const dbB = join(dir, 'raw.db');
    const dbC = join(dir, 'idle.db');
    child('seed', dbA, [due, DUE]);
    child('seed', dbB, [due, DUE]);
    const e = child('engine', dbA);
    const r = child('raw', dbB);
    child('seed', dbC, [idleN, DUE + 30 * 86_400_000]);
    const i = child('idle', dbC);
    const eRate = e.count / (e.ms / 1000);
    const rRate = r.count / (r.ms / 1000);
    const mib = (x) => `${x.toFixed(0)} MiB`;
    console.log('## Renewals (`node bench/renewals.mjs`)\n');
    console.log('| scenario | result | peak RSS | target |');
    console.log('|---|---|---|---|');
    console.log(`| engine: \`runRenewal\`, ${due.toLocaleString('en')} due subscriptions | ${Math.round(eRate).toLocaleString('en')} renewals/s (${(e.ms / 1000).toFixed(1)} s) | ${mib(e.maxRssMiB)} | < 256 MiB |`);
    console.log(`| then the callback pass \`paygate renew\` runs after it (no notifyUrl: ${e.retired.toLocaleString('en')} events retired) | ${(e.deliveryMs / 1000).toFixed(2)} s | | |`);
    console.log(`| raw SQLite: the same rows, prepared statements, same pragmas and batch size | ${Math.round(rRate).toLocaleString('en')} renewals/s (${(r.ms / 1000).toFixed(1)} s) | ${mib(r.maxRssMiB)} | baseline |`);
    console.log(`| ratio engine / raw | **${((eRate / rRate) * 100).toFixed(0)}%** | | ≥ 25% |`);
    console.log(`| nothing due, ${idleN.toLocaleString('en')} subscriptions: first run / warm run | ${i.ms.toFixed(1)} ms / ${i.warmMs.toFixed(1)} ms (open + migrate ${i.openMs.toFixed(0)} ms) | ${mib(i.maxRssMiB)} | < 50 ms, < 256 MiB |`);
    if (e.count !== due) console.log(`\nWARNING: engine charged ${e.count} of ${due}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
