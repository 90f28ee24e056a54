import { Database } from '../../src/store/sqlite/driver.js';
import { DateTime } from 'luxon';
import { expect } from 'vitest';
import { COPY_TABLES } from '../../src/store/copy.js';
import { cardYear } from './cards.js';
import { paygate } from './cli.js';
import { CLOSED_NOTIFY_URL } from './env.js';

export interface Populated {
  merchantId: string;
  subscriptionId: string;
  subscriptionCode: string;
  /** A PAY made with `--request req-fixed --relation ord-fixed` (amount 12.34, card 4242…). */
  paidTx: string;
  payArgs: string[];
}

const card = (n: string): string[] => ['--card', n, '--exp', `12/${cardYear()}`, '--cvv', '123'];

/**
 * A database with something in every table, made by the real CLI: a merchant with a notify URL
 * (so outbox events are written), a plan, a subscription with a vaulted card and a renewal,
 * PAYs (approved, declined, idempotent), a checkout page, a refund, tracking, the sandbox ledger,
 * a customer-portal link.
 */
export function populate(db: string): Populated {
  // A declined charge exits 3 (SPEC §12); everything else here succeeds.
  const cli = (args: string[], exitStatus = 0) => {
    const r = paygate(['--db', db, ...args, '--json']);
    expect(r.status, `${args.join(' ')}: ${r.stderr}`).toBe(exitStatus);
    return r.json();
  };
  const { merchantId } = cli(['merchant', 'create', '--name', 'Copy Shop', '--notify-url', CLOSED_NOTIFY_URL]);
  cli(['merchant', 'create', '--name', 'Second Shop']);
  const { planId } = cli([
    'plan',
    'create',
    '--merchant',
    merchantId,
    '--name',
    'Daily',
    '--price',
    '2.50',
    '--cycle-type',
    'DAILY',
  ]);
  const sub = cli(['subscribe', '--plan', planId, '--user', 'u-1', ...card('4242424242424242')]);
  const payArgs = [
    'pay',
    '--merchant',
    merchantId,
    '--amount',
    '12.34',
    ...card('4242424242424242'),
    '--request',
    'req-fixed',
    '--relation',
    'ord-fixed',
  ];
  const paid = cli(payArgs);
  expect(paid.status).toBe('200000');
  cli(['pay', '--merchant', merchantId, '--amount', '1.00', ...card('4000000000000002')], 3);
  cli(['pay', '--merchant', merchantId, '--amount', '5.00', '--checkout']);
  cli(['refund', '--tx', paid.transactionOrderId, '--amount', '2.00', '--request', 'ref-1', '--yes']);
  cli([
    'tracking',
    'upload',
    '--merchant',
    merchantId,
    '--order',
    paid.transactionOrderId,
    '--tracking-no',
    'T1',
    '--carrier',
    'UPS',
  ]);
  holdCoupon(db, merchantId, sub.subscriptionId);
  cli(['sub', 'update', sub.subscriptionId, '--email', 'ada@example.com']);
  holdEmail(db, merchantId, sub.subscriptionId);
  cli(['portal', 'link', '--merchant', merchantId, '--user', 'u-1']);
  const later = DateTime.utc().plus({ days: 2 }).toFormat('yyyy-MM-dd HH:mm:ss');
  cli(['renew', '--at', later]);
  return {
    merchantId,
    subscriptionId: sub.subscriptionId,
    subscriptionCode: sub.subscriptionCode,
    paidTx: paid.transactionOrderId,
    payArgs,
  };
}

/**
 * A coupon held by the subscription, written as rows: the copy must carry the coupons table and
 * the subscription's coupon columns whatever writes them.
 */
function holdCoupon(db: string, merchantId: string, subscriptionId: string): void {
  const sqlite = new Database(db);
  try {
    const now = Date.now();
    sqlite
      .prepare(
        `INSERT INTO coupons (id, merchant_id, code, percent_basis_points, duration, cycles, max_redemptions, redemptions, plan_ids, created_at)
         VALUES ('cpn_copy', ?, 'LAUNCH', 5000, 'REPEATING', 3, 100, 1, '[]', ?)`,
      )
      .run(merchantId, now);
    sqlite
      .prepare(
        "UPDATE subscriptions SET coupon_id = 'cpn_copy', coupon_code = 'LAUNCH', coupon_taken_at = ?, coupon_cycles_used = 1 WHERE id = ?",
      )
      .run(now, subscriptionId);
  } finally {
    sqlite.close();
  }
}

/** A customer email waiting, written as a row: the copy must carry the outbox whatever writes it. */
function holdEmail(db: string, merchantId: string, subscriptionId: string): void {
  const sqlite = new Database(db);
  try {
    const now = Date.now();
    sqlite
      .prepare(
        `INSERT INTO customer_emails (id, merchant_id, kind, recipient, subscription_id, dedupe_key, details, next_attempt_at, created_at)
         VALUES ('eml_copy', ?, 'subscription-ended', 'ada@example.com', ?, 'subscription-ended:copy', '{"status":"CANCELLED"}', ?, ?)`,
      )
      .run(merchantId, subscriptionId, now, now);
  } finally {
    sqlite.close();
  }
}

/** Every copied table's rows, in key order, as SQLite gives them. */
export function sqliteTables(db: string): Record<string, unknown[]> {
  const sqlite = new Database(db, { readonly: true });
  try {
    return Object.fromEntries(
      COPY_TABLES.map((t) => [
        t.name,
        sqlite.prepare(`SELECT * FROM "${t.name}" ORDER BY ${t.key.map((k) => `"${k}"`).join(', ')}`).all(),
      ]),
    );
  } finally {
    sqlite.close();
  }
}

/**
 * A database big enough that `db copy` takes a while (about a second per 300,000 rows on a quiet
 * machine): one merchant made by the CLI, then `rows` sandbox ledger entries written as rows.
 */
export function bigDatabase(db: string, rows: number): void {
  const r = paygate(['--db', db, 'merchant', 'create', '--name', 'Big Shop', '--json']);
  expect(r.status, r.stderr).toBe(0);
  const sqlite = new Database(db);
  try {
    sqlite
      .prepare(
        `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
         INSERT INTO sandbox_charges (id, idempotency_key, kind, amount, currency, customer_present, outcome, created_at, updated_at)
         SELECT 'sch_' || printf('%09d', i), 'bulk-' || i, 'CHARGE', 100, 'USD', 1, 'approved', 1, 1 FROM n`,
      )
      .run(rows);
  } finally {
    sqlite.close();
  }
}
