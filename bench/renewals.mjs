#!/usr/bin/env node
// Renewal engine benchmark (issue 4). Run: `npx tsc -p tsconfig.build.json && node bench/renewals.mjs`
// (or `npm run bench -- renewals`). Every scenario runs in its own child process so its peak RSS
// (process.resourceUsage().maxRSS) is its own; databases are seeded by a separate child first.
//  1. engine: `runRenewal` over N due subscriptions (default 100,000) — renewals/s; then, timed
//             apart, the callback pass `paygate renew` runs after it;
//  2. raw:    the same row writes (sandbox charge, RENEWAL transaction, record settle, next
//             record, subscription counters, outbox event) with plain prepared statements, same
//             pragmas, committed in batches of the engine's batch size — rows/s baseline; then
//             again with the seventh row the engine has written since invoices came (issue 22):
//             the invoice, numbered from the merchant's sequence, moved once per batch;
//  3. idle:   `runRenewal` with M subscriptions (default 1,000,000) and none due — run time.
// Options: --due N  --idle M
// --pg [URL]: on PostgreSQL instead (a throwaway cluster unless a superuser URL is given), each
// scenario on its own copy of one seeded database:
//  1. engine ×1 and ×4: one, then four processes, each running what `paygate renew` runs
//     (`runRenewal`, its own pool of the default size) over the same N due subscriptions at once;
//     renewals/s over the wall time from the common start to the last process's end; then the
//     callback pass, timed apart as on SQLite;
//  2. raw, per row: the same six row writes per renewal as prepared statements on one connection,
//     committed per batch of the engine's batch size (the SQLite baseline's method);
//  3. raw, multi-row: the same rows as one INSERT/UPDATE per table per batch (unnest arrays) —
//     the fastest plain way to write them; then again with the invoices (as on SQLite).
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { pgArg, pgServer } from './pg.mjs';

const SELF = fileURLToPath(import.meta.url);
// PAYGATE_BENCH_ROOT: another checkout's build to run instead of this one's (bench/documents-cost.mjs
// runs the code before invoices beside today's); PAYGATE_SMTP_URL reaches the app as `renew` reads it.
const DIST = process.env.PAYGATE_BENCH_ROOT
  ? new URL('dist/', pathToFileURL(`${process.env.PAYGATE_BENCH_ROOT}/`))
  : new URL('../dist/', import.meta.url);
const KEY = Buffer.alloc(32, 7).toString('base64');
// --cpu-prof DIR: each engine child writes a V8 CPU profile into DIR (bench/profile-summary.mjs).
const PROF_AT = process.argv.indexOf('--cpu-prof');
const ENGINE_NODE_ARGS = PROF_AT > 0 ? ['--cpu-prof', '--cpu-prof-dir', process.argv[PROF_AT + 1]] : [];
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
  return openApp(
    loadConfig({ db: dbPath, tz: 'UTC' }, { PAYGATE_VAULT_KEY: KEY, PAYGATE_SMTP_URL: process.env.PAYGATE_SMTP_URL }),
    {
      clock: new FixedClock(now),
    },
  );
}

/** Child: seed `count` ACTIVE monthly subscriptions, their RENEW due at `dueAt`. */
async function seed(dbPath, count, dueAt) {
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
  const panEnc = ctx.vault.encrypt('4242424242424242');
  // Seeding reaches past the store boundary to the SQLite engine's connection: fast bulk inserts.
  const sqlite = ctx.store.connection;
  const card = sqlite.prepare(
    `INSERT INTO cards (id, merchant_id, pan_enc, bin, last4, brand, exp_month, exp_year, created_at) VALUES (?, ?, ?, '424242', '4242', 'Visa', 12, 2099, ?)`,
  );
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
        sub.run(
          `sub_b${n}`,
          `SCB${n}`,
          m.merchantId,
          plan.planId,
          `user-${i}`,
          `crd_b${n}`,
          START,
          dueAt,
          START,
          START,
          START,
        );
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

/**
 * The invoice a renewal issues, as the engine writes it (services/documents/issue.ts): the seller
 * copied from the merchant, the subscriber's customer, a plan line with its period, the card.
 */
const invoiceDocument = (sid) =>
  JSON.stringify({
    lines: [
      {
        description: 'Monthly',
        period: { from: DUE, to: DUE + 28 * 86_400_000 },
        amount: 999,
      },
    ],
    payment: { brand: 'Visa', last4: '4242' },
    relationId: '',
    subscriptionCode: `SCB${sid.slice(5)}`,
  });
const INVOICE_CUSTOMER = JSON.stringify({ addressLines: [] });
/** Invoice tokens as the engine draws them (its time first, so the token index grows at its end). */
const tokens = async () => (await import(new URL('domain/ids.js', DIST))).documentToken;
const invoiceNumber = (n) => `INV-${String(n).padStart(6, '0')}`;
/** The records a raw baseline renews, with what their rows need (both engines). */
const PENDING_RECORDS = `SELECT r.id, r.subscription_id AS sid, r.merchant_id AS mid, s.user_id AS uid
  FROM billing_records r JOIN subscriptions s ON s.id = r.subscription_id WHERE r.status = 'PENDING' ORDER BY r.id`;

/**
 * Child: the raw SQLite write rate of the same rows, same pragmas (openSqlite), same batch size;
 * `invoices`: with each renewal's invoice too.
 */
async function raw(dbPath, invoices) {
  const { openSqlite } = await import(new URL('store/sqlite/client.js', DIST));
  const invoiceToken = await tokens();
  const { BATCH_SIZE } = await import(new URL('services/renew/run.js', DIST));
  const sqlite = openSqlite(dbPath);
  const ids = sqlite.prepare(PENDING_RECORDS).all();
  const charge =
    sqlite.prepare(`INSERT INTO sandbox_charges (id, idempotency_key, kind, amount, currency, card_bin, card_last4, customer_present, outcome, created_at, updated_at)
    VALUES (?, ?, 'charge', 999, 'USD', '424242', '4242', 0, 'approved', ?, ?)`);
  const txn =
    sqlite.prepare(`INSERT INTO transactions (id, merchant_id, payment_type, status, amount, currency, subscription_id, billing_record_id, created_at, updated_at)
    VALUES (?, ?, 'RENEWAL', 200000, 999, 'USD', ?, ?, ?, ?)`);
  const settle = sqlite.prepare(
    "UPDATE billing_records SET status = 'SUCCESS', actual_time = ?, transaction_id = ? WHERE id = ?",
  );
  const next =
    sqlite.prepare(`INSERT INTO billing_records (id, subscription_id, merchant_id, billing_type, amount, currency, scheduled_time, status, retry_count, cycle_index, created_at)
    VALUES (?, ?, ?, 'RENEW', 999, 'USD', ?, 'PENDING', 0, 2, ?)`);
  const subUpd = sqlite.prepare(
    'UPDATE subscriptions SET billing_count = billing_count + 1, total_paid = total_paid + 999, paid_through = ?, updated_at = ? WHERE id = ?',
  );
  const evt =
    sqlite.prepare(`INSERT INTO outbox_events (id, merchant_id, kind, event_type, subscription_id, payload, status, attempts, next_attempt_at, created_at)
    VALUES (?, ?, 'SUBSCRIPTION', 'RENEW_SUCCEEDED', ?, ?, 'PENDING', 0, ?, ?)`);
  const sequence = sqlite.prepare(
    'UPDATE merchants SET invoice_next = invoice_next + ? WHERE id = ? RETURNING invoice_next - ? AS first, name',
  );
  const invoice =
    sqlite.prepare(`INSERT INTO invoices (id, merchant_id, number, token, transaction_id, subscription_id, user_id, currency, total, issued_at, seller_name, customer, document)
    VALUES (?, ?, ?, ?, ?, ?, ?, 'USD', 999, ?, ?, ?, ?)`);
  const payload = JSON.stringify({ notifyType: 'SUBSCRIPTION', eventType: 'RENEW_SUCCEEDED', amount: '9.99' });
  const t0 = performance.now();
  for (let b = 0; b < ids.length; b += BATCH_SIZE) {
    const batch = ids.slice(b, b + BATCH_SIZE);
    sqlite
      .transaction(() => {
        // One merchant in the bench: its sequence moved once for the batch.
        const taken = invoices ? sequence.get(batch.length, batch[0].mid, batch.length) : undefined;
        let n = taken?.first;
        for (const r of batch) {
          charge.run(`ch_${r.id}`, r.id, RUN_AT, RUN_AT);
          txn.run(`txn_${r.id}`, r.mid, r.sid, r.id, RUN_AT, RUN_AT);
          settle.run(RUN_AT, `txn_${r.id}`, r.id);
          next.run(`rec_n${r.id}`, r.sid, r.mid, RUN_AT + 28 * 86_400_000, RUN_AT);
          subUpd.run(RUN_AT + 28 * 86_400_000, RUN_AT, r.sid);
          evt.run(`evt_${r.id}`, r.mid, r.sid, payload, RUN_AT, RUN_AT);
          if (taken) {
            invoice.run(
              `inv_${r.id}`,
              r.mid,
              invoiceNumber(n++),
              invoiceToken(),
              `txn_${r.id}`,
              r.sid,
              r.uid,
              RUN_AT,
              taken.name,
              INVOICE_CUSTOMER,
              invoiceDocument(r.sid),
            );
          }
        }
      })
      .immediate();
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

// ---- PostgreSQL ----

/** Child: seed the PostgreSQL database at `url` like seed() does SQLite (same ids, same rows). */
async function seedPg(url, count, dueAt) {
  const ctx = await app(url, START);
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
  const panEnc = ctx.vault.encrypt('4242424242424242');
  // Seeding reaches past the store boundary to the PostgreSQL engine's pool: set-based inserts.
  const pool = ctx.store.handle.pool;
  const n = "lpad(i::text, 8, '0')";
  const args = [m.merchantId, panEnc, START, count];
  await pool.query(
    `INSERT INTO cards (id, merchant_id, pan_enc, bin, last4, brand, exp_month, exp_year, created_at)
     SELECT 'crd_b' || ${n}, $1, $2, '424242', '4242', 'Visa', 12, 2099, $3 FROM generate_series(0, $4 - 1) AS i`,
    args,
  );
  await pool.query(
    `INSERT INTO subscriptions (id, code, merchant_id, plan_id, user_id, card_id, amount, currency, cycle_type, cycle_length, status,
       anchor_time, paid_through, start_time, billing_count, failed_count, total_paid, created_at, updated_at)
     SELECT 'sub_b' || ${n}, 'SCB' || ${n}, $1, $5, 'user-' || i, 'crd_b' || ${n}, 999, 'USD', 'MONTHLY', 1, 'ACTIVE',
       $3, $6, $3, 1, 0, 999, $3, $3 FROM generate_series(0, $4 - 1) AS i WHERE $2::text IS NOT NULL`,
    [...args, plan.planId, dueAt],
  );
  await pool.query(
    `INSERT INTO billing_records (id, subscription_id, merchant_id, billing_type, amount, currency, scheduled_time, status, retry_count, cycle_index, created_at)
     SELECT 'rec_b' || ${n}, 'sub_b' || ${n}, $1, 'RENEW', 999, 'USD', $5, 'PENDING', 0, 1, $3 FROM generate_series(0, $4 - 1) AS i WHERE $2::text IS NOT NULL`,
    [...args, dueAt],
  );
  await pool.query('VACUUM ANALYZE');
  await ctx.close();
}

/**
 * Child: one renewal process. Opens the app, says "ready", waits for "go" on stdin (so that
 * several start together), runs what `paygate renew` runs, and reports when it started and ended
 * (wall clock, shared by every process on the machine).
 */
async function enginePg(url) {
  const ctx = await app(url, RUN_AT);
  const { runRenewal } = await import(new URL('services/renew/index.js', DIST));
  await ctx.store.countDue(RUN_AT); // the pool's first connection, before the clock starts
  process.stdout.write('ready\n');
  await new Promise((resolve) => process.stdin.once('data', resolve));
  const startedAt = performance.timeOrigin + performance.now();
  const s = await runRenewal(ctx, { deliverCallbacks: false });
  const endedAt = performance.timeOrigin + performance.now();
  await ctx.close();
  return { startedAt, endedAt, count: s.succeeded, due: s.due };
}

/** Child: the callback pass after the renewals (no notifyUrl any more: every event retired). */
async function deliverPg(url) {
  const ctx = await app(url, RUN_AT);
  const { deliverDue } = await import(new URL('notify/deliver.js', DIST));
  await setNotifyUrl(ctx, null);
  const t0 = performance.now();
  const d = await deliverDue(ctx, { now: RUN_AT });
  const ms = performance.now() - t0;
  await ctx.close();
  return { ms, retired: d.dead };
}

/** Child: the raw write rate of the same rows on one connection (synchronous_commit=on). */
async function rawPg(url, mode) {
  const { BATCH_SIZE } = await import(new URL('services/renew/run.js', DIST));
  const invoiceToken = await tokens();
  const { createRequire } = await import('node:module');
  const pg = createRequire(import.meta.url)('pg');
  const c = new pg.Client({ connectionString: url, options: '-c synchronous_commit=on' });
  await c.connect();
  // The invoices' foreign-key check finds its transaction by primary key, as in the engine's run
  // (pg_stat_user_tables after one: 5,000 index scans of transactions for 5,000 renewals). This
  // connection plans that check once, on the first batch, while transactions holds a few pages
  // and its statistics say empty: a sequential scan, kept for the connection's life, which read
  // 12.5 million rows for 5,000 renewals and made this baseline ten times slower than the engine.
  if (mode === 'multi-invoices') await c.query('SET enable_seqscan = off');
  const ids = (await c.query(PENDING_RECORDS)).rows;
  const payload = JSON.stringify({ notifyType: 'SUBSCRIPTION', eventType: 'RENEW_SUCCEEDED', amount: '9.99' });
  const NEXT = RUN_AT + 28 * 86_400_000;
  const q = (name, text, values) => c.query({ name, text, values });
  const t0 = performance.now();
  for (let b = 0; b < ids.length; b += BATCH_SIZE) {
    const batch = ids.slice(b, b + BATCH_SIZE);
    await c.query('BEGIN');
    if (mode === 'rows') {
      for (const r of batch) {
        await q(
          'charge',
          `INSERT INTO sandbox_charges (id, idempotency_key, kind, amount, currency, card_bin, card_last4, customer_present, outcome, created_at, updated_at)
          VALUES ($1, $2, 'charge', 999, 'USD', '424242', '4242', false, 'approved', $3, $3)`,
          [`ch_${r.id}`, r.id, RUN_AT],
        );
        await q(
          'txn',
          `INSERT INTO transactions (id, merchant_id, payment_type, status, amount, currency, subscription_id, billing_record_id, created_at, updated_at)
          VALUES ($1, $2, 'RENEWAL', 200000, 999, 'USD', $3, $4, $5, $5)`,
          [`txn_${r.id}`, r.mid, r.sid, r.id, RUN_AT],
        );
        await q(
          'settle',
          "UPDATE billing_records SET status = 'SUCCESS', actual_time = $1, transaction_id = $2 WHERE id = $3",
          [RUN_AT, `txn_${r.id}`, r.id],
        );
        await q(
          'next',
          `INSERT INTO billing_records (id, subscription_id, merchant_id, billing_type, amount, currency, scheduled_time, status, retry_count, cycle_index, created_at)
          VALUES ($1, $2, $3, 'RENEW', 999, 'USD', $4, 'PENDING', 0, 2, $5)`,
          [`rec_n${r.id}`, r.sid, r.mid, NEXT, RUN_AT],
        );
        await q(
          'sub',
          'UPDATE subscriptions SET billing_count = billing_count + 1, total_paid = total_paid + 999, paid_through = $1, updated_at = $2 WHERE id = $3',
          [NEXT, RUN_AT, r.sid],
        );
        await q(
          'evt',
          `INSERT INTO outbox_events (id, merchant_id, kind, event_type, subscription_id, payload, status, attempts, next_attempt_at, created_at)
          VALUES ($1, $2, 'SUBSCRIPTION', 'RENEW_SUCCEEDED', $3, $4, 'PENDING', 0, $5, $5)`,
          [`evt_${r.id}`, r.mid, r.sid, payload, RUN_AT],
        );
      }
    } else {
      const rid = batch.map((r) => r.id);
      const sid = batch.map((r) => r.sid);
      const mid = batch.map((r) => r.mid);
      await q(
        'm_charge',
        `INSERT INTO sandbox_charges (id, idempotency_key, kind, amount, currency, card_bin, card_last4, customer_present, outcome, created_at, updated_at)
        SELECT 'ch_' || r, r, 'charge', 999, 'USD', '424242', '4242', false, 'approved', $2, $2 FROM unnest($1::text[]) AS r`,
        [rid, RUN_AT],
      );
      await q(
        'm_txn',
        `INSERT INTO transactions (id, merchant_id, payment_type, status, amount, currency, subscription_id, billing_record_id, created_at, updated_at)
        SELECT 'txn_' || r, m, 'RENEWAL', 200000, 999, 'USD', s, r, $4, $4 FROM unnest($1::text[], $2::text[], $3::text[]) AS u(r, s, m)`,
        [rid, sid, mid, RUN_AT],
      );
      await q(
        'm_settle',
        "UPDATE billing_records SET status = 'SUCCESS', actual_time = $2, transaction_id = 'txn_' || id WHERE id = ANY($1::text[])",
        [rid, RUN_AT],
      );
      await q(
        'm_next',
        `INSERT INTO billing_records (id, subscription_id, merchant_id, billing_type, amount, currency, scheduled_time, status, retry_count, cycle_index, created_at)
        SELECT 'rec_n' || r, s, m, 'RENEW', 999, 'USD', $4, 'PENDING', 0, 2, $5 FROM unnest($1::text[], $2::text[], $3::text[]) AS u(r, s, m)`,
        [rid, sid, mid, NEXT, RUN_AT],
      );
      await q(
        'm_sub',
        'UPDATE subscriptions SET billing_count = billing_count + 1, total_paid = total_paid + 999, paid_through = $2, updated_at = $3 WHERE id = ANY($1::text[])',
        [sid, NEXT, RUN_AT],
      );
      await q(
        'm_evt',
        `INSERT INTO outbox_events (id, merchant_id, kind, event_type, subscription_id, payload, status, attempts, next_attempt_at, created_at)
        SELECT 'evt_' || r, m, 'SUBSCRIPTION', 'RENEW_SUCCEEDED', s, $4, 'PENDING', 0, $5, $5 FROM unnest($1::text[], $2::text[], $3::text[]) AS u(r, s, m)`,
        [rid, sid, mid, payload, RUN_AT],
      );
      if (mode === 'multi-invoices') {
        // One merchant in the bench: its sequence moved once for the batch, under its row lock.
        const { first, name } = (
          await q(
            'm_seq',
            'UPDATE merchants SET invoice_next = invoice_next + $1 WHERE id = $2 RETURNING invoice_next - $1 AS first, name',
            [batch.length, mid[0]],
          )
        ).rows[0];
        await q(
          'm_inv',
          `INSERT INTO invoices (id, merchant_id, number, token, transaction_id, subscription_id, user_id, currency, total, issued_at, seller_name, customer, document)
          SELECT 'inv_' || r, m, n, t, 'txn_' || r, s, u, 'USD', 999, $8, $9, $10, d
          FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[]) AS x(r, s, m, u, n, t, d)`,
          [
            rid,
            sid,
            mid,
            batch.map((r) => r.uid),
            batch.map((_, i) => invoiceNumber(Number(first) + i)),
            batch.map(() => invoiceToken()),
            batch.map((r) => invoiceDocument(r.sid)),
            RUN_AT,
            name,
            INVOICE_CUSTOMER,
          ],
        );
      }
    }
    await c.query('COMMIT');
  }
  const ms = performance.now() - t0;
  await c.end();
  return { ms, count: ids.length };
}

/** N engine processes over one database, started together. */
async function engineRun(url, processes) {
  const kids = Array.from({ length: processes }, () => {
    const proc = spawn(process.execPath, [...ENGINE_NODE_ARGS, SELF, '--child', 'engine-pg', url], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    proc.stdout.on('data', (d) => (out += d));
    proc.stderr.on('data', (d) => (err += d));
    const timer = setTimeout(() => proc.kill('SIGKILL'), 900_000);
    const done = new Promise((resolve, reject) =>
      proc.on('exit', (code) => {
        clearTimeout(timer);
        if (code === 0) resolve(JSON.parse(out.trim().split('\n').pop()));
        else reject(new Error(`engine-pg exited ${code}: ${err}`));
      }),
    );
    const ready = new Promise((resolve, reject) => {
      proc.stdout.on('data', () => out.includes('ready\n') && resolve());
      done.catch(reject);
    });
    return { proc, done, ready };
  });
  await Promise.all(kids.map((k) => k.ready));
  for (const k of kids) k.proc.stdin.end('go\n');
  const results = await Promise.all(kids.map((k) => k.done));
  const startedAt = Math.min(...results.map((r) => r.startedAt));
  const endedAt = Math.max(...results.map((r) => r.endedAt));
  return {
    ms: endedAt - startedAt,
    count: results.reduce((n, r) => n + r.count, 0),
    perProcess: results.map((r) => r.count),
    maxRssMiB: Math.max(...results.map((r) => r.maxRssMiB)),
  };
}

async function mainPg(givenUrl, due) {
  const server = await pgServer(givenUrl);
  try {
    // One seeded database; each scenario runs on its own copy (CREATE DATABASE … TEMPLATE).
    const seeded = await server.createDatabase();
    const s0 = performance.now();
    child('seed-pg', seeded, [due, DUE]);
    const seedMs = performance.now() - s0;
    const copy = () => server.createDatabase(seeded);
    const withNotify = async (url) => {
      // An event per renewal, as in the raw baselines: the merchant has a notifyUrl during the run.
      const { createRequire } = await import('node:module');
      const pg = createRequire(import.meta.url)('pg');
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      await c.query("UPDATE merchants SET notify_url = 'https://shop.example/notify'");
      await c.end();
      return url;
    };
    const oneUrl = await withNotify(await copy());
    const one = await engineRun(oneUrl, 1);
    const four = await engineRun(await withNotify(await copy()), 4);
    const d = child('deliver-pg', oneUrl);
    const rows = child('raw-pg', await copy(), ['rows']);
    const multi = child('raw-pg', await copy(), ['multi']);
    const multiInvoices = child('raw-pg', await copy(), ['multi-invoices']);
    const rate = (r) => r.count / (r.ms / 1000);
    const fmt = (r) => `${Math.round(rate(r)).toLocaleString('en')} renewals/s (${(r.ms / 1000).toFixed(1)} s)`;
    const pctOf = (a, b) => `${((rate(a) / rate(b)) * 100).toFixed(0)}%`;
    console.log('## Renewals on PostgreSQL (`node bench/renewals.mjs --pg`)\n');
    console.log(
      `Server: ${server.label}; ${due.toLocaleString('en')} due subscriptions seeded in ${(seedMs / 1000).toFixed(1)} s, each scenario on its own copy.\n`,
    );
    console.log('| scenario | result | peak RSS | target |');
    console.log('|---|---|---|---|');
    console.log(
      `| engine ×1: one renewal process (\`runRenewal\`, pool of the default size) | ${fmt(one)} | ${one.maxRssMiB.toFixed(0)} MiB | < 256 MiB |`,
    );
    console.log(
      `| engine ×4: four renewal processes at once on one database (charged per process: ${four.perProcess.map((n) => n.toLocaleString('en')).join(' / ')}) | ${fmt(four)} | ${four.maxRssMiB.toFixed(0)} MiB each at most | faster than ×1 |`,
    );
    console.log(
      `| then the callback pass \`paygate renew\` runs after it (no notifyUrl: ${d.retired.toLocaleString('en')} events retired) | ${(d.ms / 1000).toFixed(2)} s | | |`,
    );
    console.log(
      `| raw, per row: the same six row writes as prepared statements on one connection, a commit per batch | ${fmt(rows)} | | baseline |`,
    );
    console.log(
      `| raw, multi-row: one statement per table per batch (unnest arrays), a commit per batch | ${fmt(multi)} | | |`,
    );
    console.log(
      `| raw, multi-row with the invoices: the same and each renewal's invoice (one sequence move per batch), as the engine writes them | ${fmt(multiInvoices)} | | |`,
    );
    console.log(`| ratio engine ×1 / raw per row | **${pctOf(one, rows)}** | | ≥ 25% |`);
    console.log(`| ratio engine ×1 / raw multi-row | ${pctOf(one, multi)} | | ≥ 50% |`);
    console.log(`| ratio engine ×1 / raw multi-row with the invoices | ${pctOf(one, multiInvoices)} | | |`);
    console.log(`| ratio engine ×4 / engine ×1 | **${(rate(four) / rate(one)).toFixed(2)}×** | | > 1 |`);
    for (const [name, r] of [
      ['×1', one],
      ['×4', four],
    ])
      if (r.count !== due) console.log(`\nWARNING: engine ${name} charged ${r.count} of ${due}`);
  } finally {
    await server.stop();
  }
}

function child(kind, dbPath, extra = []) {
  const nodeArgs = kind === 'engine' ? ENGINE_NODE_ARGS : [];
  const r = spawnSync(process.execPath, [...nodeArgs, SELF, '--child', kind, dbPath, ...extra], {
    encoding: 'utf8',
    maxBuffer: 1 << 24,
    timeout: 900_000,
  });
  if (r.status !== 0) throw new Error(`${kind} failed: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop());
}

if (process.argv[2] === '--child') {
  const [, , , kind, dbPath, a, b] = process.argv;
  let out = {};
  if (kind === 'seed') await seed(dbPath, Number(a), Number(b));
  else if (kind === 'engine') out = await engine(dbPath);
  else if (kind === 'raw') out = await raw(dbPath, a === 'invoices');
  else if (kind === 'idle') out = await idle(dbPath);
  else if (kind === 'seed-pg') await seedPg(dbPath, Number(a), Number(b));
  else if (kind === 'engine-pg') out = await enginePg(dbPath);
  else if (kind === 'deliver-pg') out = await deliverPg(dbPath);
  else if (kind === 'raw-pg') out = await rawPg(dbPath, a);
  out.maxRssMiB = process.resourceUsage().maxRSS / 1024;
  process.stdout.write(JSON.stringify(out) + '\n');
} else if (pgArg().wanted) {
  await mainPg(pgArg().url, arg('--due', 100_000));
} else {
  const due = arg('--due', 100_000);
  const idleN = arg('--idle', 1_000_000);
  const dir = mkdtempSync(join(tmpdir(), 'paygate-bench-renew-'));
  try {
    const dbA = join(dir, 'engine.db');
    const dbB = join(dir, 'raw.db');
    const dbI = join(dir, 'raw-invoices.db');
    const dbC = join(dir, 'idle.db');
    child('seed', dbA, [due, DUE]);
    child('seed', dbB, [due, DUE]);
    child('seed', dbI, [due, DUE]);
    const e = child('engine', dbA);
    const r = child('raw', dbB);
    const ri = child('raw', dbI, ['invoices']);
    child('seed', dbC, [idleN, DUE + 30 * 86_400_000]);
    const i = child('idle', dbC);
    const eRate = e.count / (e.ms / 1000);
    const rRate = r.count / (r.ms / 1000);
    const mib = (x) => `${x.toFixed(0)} MiB`;
    console.log('## Renewals (`node bench/renewals.mjs`)\n');
    console.log('| scenario | result | peak RSS | target |');
    console.log('|---|---|---|---|');
    console.log(
      `| engine: \`runRenewal\`, ${due.toLocaleString('en')} due subscriptions | ${Math.round(eRate).toLocaleString('en')} renewals/s (${(e.ms / 1000).toFixed(1)} s) | ${mib(e.maxRssMiB)} | < 256 MiB |`,
    );
    console.log(
      `| then the callback pass \`paygate renew\` runs after it (no notifyUrl: ${e.retired.toLocaleString('en')} events retired) | ${(e.deliveryMs / 1000).toFixed(2)} s | | |`,
    );
    console.log(
      `| raw SQLite: the same rows, prepared statements, same pragmas and batch size | ${Math.round(rRate).toLocaleString('en')} renewals/s (${(r.ms / 1000).toFixed(1)} s) | ${mib(r.maxRssMiB)} | baseline |`,
    );
    const riRate = ri.count / (ri.ms / 1000);
    console.log(
      `| raw SQLite with the invoices: the same and each renewal's invoice (one sequence move per batch), as the engine writes them | ${Math.round(riRate).toLocaleString('en')} renewals/s (${(ri.ms / 1000).toFixed(1)} s) | ${mib(ri.maxRssMiB)} | |`,
    );
    console.log(`| ratio engine / raw | **${((eRate / rRate) * 100).toFixed(0)}%** | | ≥ 25% |`);
    console.log(`| ratio engine / raw with the invoices | ${((eRate / riRate) * 100).toFixed(0)}% | | |`);
    console.log(
      `| nothing due, ${idleN.toLocaleString('en')} subscriptions: first run / warm run | ${i.ms.toFixed(1)} ms / ${i.warmMs.toFixed(1)} ms (open + migrate ${i.openMs.toFixed(0)} ms) | ${mib(i.maxRssMiB)} | < 50 ms, < 256 MiB |`,
    );
    if (e.count !== due) console.log(`\nWARNING: engine charged ${e.count} of ${due}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
