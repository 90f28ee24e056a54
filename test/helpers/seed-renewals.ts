import { join } from 'node:path';
import { openApp } from '../../src/app.js';
import type { Ctx } from '../../src/ctx.js';
import { loadConfig } from '../../src/config.js';
import { FixedClock } from '../../src/domain/clock.js';
import { createMerchant } from '../../src/services/merchants.js';
import { createPlan } from '../../src/services/plans.js';
import { SqliteStore } from '../../src/store/sqlite/index.js';
// Not from ctx.ts: that module imports vitest, and bench/ loads this helper outside vitest.
import { TEST_VAULT_KEY } from './env.js';
import { rowsOf } from './rows.js';

/**
 * Seed `count` ACTIVE monthly subscriptions whose RENEW record is due at `dueAt`, with direct
 * prepared inserts in one transaction (fast), exactly the rows the subscribe flow writes
 * (docs/renewals.md conventions). Returns the database path.
 *
 * The merchant's notifyUrl is a link-local address, stored directly (the API refuses it): the
 * renewal callbacks are written (an event with no URL anywhere is not) and each delivery pass
 * retires them DEAD without opening a connection, so the runs are not slowed by thousands of
 * network attempts.
 *
 * `db`: another database than `<dir>/paygate.db`, e.g. a postgres:// URL (seeded with set-based
 * INSERT … SELECT FROM generate_series, the same rows).
 */
function sqliteOf(ctx: Ctx) {
  if (!(ctx.store instanceof SqliteStore)) throw new Error('seeding SQLite rows needs a SQLite store');
  return ctx.store.connection;
}

export const SEED_NOTIFY_URL = 'http://169.254.0.1/never-called';

export async function seedDueSubscriptions(
  dir: string,
  count: number,
  opts: { startedAt: number; dueAt: number; card?: string; db?: string },
): Promise<string> {
  const dbPath = opts.db ?? join(dir, 'paygate.db');
  const ctx = await openApp(loadConfig({ db: dbPath, tz: 'UTC' }, { PAYGATE_VAULT_KEY: TEST_VAULT_KEY }), {
    clock: new FixedClock(opts.startedAt),
  });
  try {
    const m = await createMerchant(ctx, { name: 'Load Shop' });
    if (/^postgres(ql)?:/.test(dbPath)) {
      await seedPostgres(ctx, m.merchantId, count, opts);
      return dbPath;
    }
    sqliteOf(ctx).prepare('UPDATE merchants SET notify_url = ? WHERE id = ?').run(SEED_NOTIFY_URL, m.merchantId);
    const plan = await createPlan(ctx, m.merchantId, {
      planName: 'Monthly',
      price: '9.99',
      currency: 'USD',
      cycleType: 'MONTHLY',
      cycleLength: 1,
    });
    const panEnc = ctx.vault.encrypt(opts.card ?? '4242424242424242');
    const sqlite = sqliteOf(ctx);
    const card = sqlite.prepare(
      `INSERT INTO cards (id, merchant_id, pan_enc, bin, last4, brand, exp_month, exp_year, holder_name, created_at)
       VALUES (?, ?, ?, '424242', '4242', 'Visa', 12, 2099, NULL, ?)`,
    );
    const sub = sqlite.prepare(
      `INSERT INTO subscriptions (id, code, merchant_id, plan_id, user_id, card_id, amount, currency, cycle_type, cycle_length, status,
         anchor_time, paid_through, start_time, billing_count, failed_count, total_paid, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, 999, 'USD', 'MONTHLY', 1, 'ACTIVE', ?, ?, ?, 1, 0, 999, ?, ?)`,
    );
    const rec = sqlite.prepare(
      `INSERT INTO billing_records (id, subscription_id, merchant_id, billing_type, amount, currency, scheduled_time, status, retry_count, cycle_index, created_at)
       VALUES (?, ?, ?, ?, 999, 'USD', ?, ?, 0, ?, ?)`,
    );
    sqlite.transaction(() => {
      for (let i = 0; i < count; i++) {
        const sid = `sub_seed${String(i).padStart(8, '0')}`;
        const cid = `crd_seed${String(i).padStart(8, '0')}`;
        card.run(cid, m.merchantId, panEnc, opts.startedAt);
        sub.run(
          sid,
          `SCSEED${i}`,
          m.merchantId,
          plan.planId,
          `user-${i}`,
          cid,
          opts.startedAt,
          opts.dueAt,
          opts.startedAt,
          opts.startedAt,
          opts.startedAt,
        );
        rec.run(
          `rec_seedI${String(i).padStart(8, '0')}`,
          sid,
          m.merchantId,
          'INITIAL',
          opts.startedAt,
          'SUCCESS',
          0,
          opts.startedAt,
        );
        rec.run(
          `rec_seedR${String(i).padStart(8, '0')}`,
          sid,
          m.merchantId,
          'RENEW',
          opts.dueAt,
          'PENDING',
          1,
          opts.startedAt,
        );
      }
      sqlite.prepare('UPDATE plans SET current_subscriptions = ? WHERE id = ?').run(count, plan.planId);
    })();
  } finally {
    await ctx.close();
  }
  return dbPath;
}

async function seedPostgres(
  ctx: Ctx,
  merchantId: string,
  count: number,
  opts: { startedAt: number; dueAt: number; card?: string },
): Promise<void> {
  const rows = rowsOf(ctx);
  await rows.run('UPDATE merchants SET notify_url = ? WHERE id = ?', SEED_NOTIFY_URL, merchantId);
  const plan = await createPlan(ctx, merchantId, {
    planName: 'Monthly',
    price: '9.99',
    currency: 'USD',
    cycleType: 'MONTHLY',
    cycleLength: 1,
  });
  const panEnc = ctx.vault.encrypt(opts.card ?? '4242424242424242');
  const n = "lpad(i::text, 8, '0')";
  await rows.run(
    `INSERT INTO cards (id, merchant_id, pan_enc, bin, last4, brand, exp_month, exp_year, holder_name, created_at)
     SELECT 'crd_seed' || ${n}, $1, $2, '424242', '4242', 'Visa', 12, 2099, NULL, $3::bigint FROM generate_series(0, $4::int - 1) AS i`,
    merchantId,
    panEnc,
    opts.startedAt,
    count,
  );
  await rows.run(
    `INSERT INTO subscriptions (id, code, merchant_id, plan_id, user_id, card_id, amount, currency, cycle_type, cycle_length, status,
       anchor_time, paid_through, start_time, billing_count, failed_count, total_paid, created_at, updated_at)
     SELECT 'sub_seed' || ${n}, 'SCSEED' || i, $1, $2, 'user-' || i, 'crd_seed' || ${n}, 999, 'USD', 'MONTHLY', 1, 'ACTIVE',
       $3::bigint, $4::bigint, $3::bigint, 1, 0, 999, $3::bigint, $3::bigint FROM generate_series(0, $5::int - 1) AS i`,
    merchantId,
    plan.planId,
    opts.startedAt,
    opts.dueAt,
    count,
  );
  await rows.run(
    `INSERT INTO billing_records (id, subscription_id, merchant_id, billing_type, amount, currency, scheduled_time, status, retry_count, cycle_index, created_at)
     SELECT 'rec_seed' || k.t || ${n}, 'sub_seed' || ${n}, $1, k.type, 999, 'USD', CASE WHEN k.t = 'I' THEN $2::bigint ELSE $3::bigint END,
       k.status, 0, k.cycle, $2::bigint
     FROM generate_series(0, $4::int - 1) AS i,
       (VALUES ('I', 'INITIAL', 'SUCCESS', 0), ('R', 'RENEW', 'PENDING', 1)) AS k(t, type, status, cycle)`,
    merchantId,
    opts.startedAt,
    opts.dueAt,
    count,
  );
  await rows.run('UPDATE plans SET current_subscriptions = ? WHERE id = ?', count, plan.planId);
}
