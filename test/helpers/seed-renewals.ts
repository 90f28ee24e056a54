import { join } from 'node:path';
import { openApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { FixedClock } from '../../src/domain/clock.js';
import { createMerchant } from '../../src/services/merchants.js';
import { createPlan } from '../../src/services/plans.js';
import { TEST_VAULT_KEY } from './ctx.js';

/**
 * Seed `count` ACTIVE monthly subscriptions whose RENEW record is due at `dueAt`, with direct
 * prepared inserts in one transaction (fast), exactly the rows the subscribe flow writes
 * (docs/renewals.md conventions). Returns the database path.
 *
 * The merchant's notifyUrl is a link-local address, stored directly (the API refuses it): the
 * renewal callbacks are written (an event with no URL anywhere is not) and each delivery pass
 * retires them DEAD without opening a connection, so the runs are not slowed by thousands of
 * network attempts.
 */
export const SEED_NOTIFY_URL = 'http://169.254.0.1/never-called';

export function seedDueSubscriptions(dir: string, count: number, opts: { startedAt: number; dueAt: number; card?: string }): string {
  const dbPath = join(dir, 'paygate.db');
  const ctx = openApp(loadConfig({ db: dbPath, tz: 'UTC' }, { PAYGATE_VAULT_KEY: TEST_VAULT_KEY }), { clock: new FixedClock(opts.startedAt) });
  try {
    const m = createMerchant(ctx, { name: 'Load Shop' });
    ctx.sqlite.prepare('UPDATE merchants SET notify_url = ? WHERE id = ?').run(SEED_NOTIFY_URL, m.merchantId);
    const plan = createPlan(ctx, m.merchantId, { planName: 'Monthly', price: '9.99', currency: 'USD', cycleType: 'MONTHLY', cycleLength: 1 });
    const panEnc = ctx.vault.encrypt(opts.card ?? '4242424242424242');
    const card = ctx.sqlite.prepare(
      `INSERT INTO cards (id, merchant_id, pan_enc, bin, last4, brand, exp_month, exp_year, holder_name, created_at)
       VALUES (?, ?, ?, '424242', '4242', 'Visa', 12, 2099, NULL, ?)`,
    );
    const sub = ctx.sqlite.prepare(
      `INSERT INTO subscriptions (id, code, merchant_id, plan_id, user_id, card_id, amount, currency, cycle_type, cycle_length, status,
         anchor_time, paid_through, start_time, billing_count, failed_count, total_paid, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, 999, 'USD', 'MONTHLY', 1, 'ACTIVE', ?, ?, ?, 1, 0, 999, ?, ?)`,
    );
    const rec = ctx.sqlite.prepare(
      `INSERT INTO billing_records (id, subscription_id, merchant_id, billing_type, amount, currency, scheduled_time, status, retry_count, cycle_index, created_at)
       VALUES (?, ?, ?, ?, 999, 'USD', ?, ?, 0, ?, ?)`,
    );
    ctx.sqlite.transaction(() => {
      for (let i = 0; i < count; i++) {
        const sid = `sub_seed${String(i).padStart(8, '0')}`;
        const cid = `crd_seed${String(i).padStart(8, '0')}`;
        card.run(cid, m.merchantId, panEnc, opts.startedAt);
        sub.run(sid, `SCSEED${i}`, m.merchantId, plan.planId, `user-${i}`, cid, opts.startedAt, opts.dueAt, opts.startedAt, opts.startedAt, opts.startedAt);
        rec.run(`rec_seedI${String(i).padStart(8, '0')}`, sid, m.merchantId, 'INITIAL', opts.startedAt, 'SUCCESS', 0, opts.startedAt);
        rec.run(`rec_seedR${String(i).padStart(8, '0')}`, sid, m.merchantId, 'RENEW', opts.dueAt, 'PENDING', 1, opts.startedAt);
      }
      ctx.sqlite.prepare('UPDATE plans SET current_subscriptions = ? WHERE id = ?').run(count, plan.planId);
    })();
  } finally {
    ctx.close();
  }
  return dbPath;
}
