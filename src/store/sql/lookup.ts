import type { OwnedId, PageWindow } from '../store.js';
import type { Db } from './db.js';

/**
 * The operator's queries: which merchant owns an object named by its id (ids and subscription
 * codes are unique across merchants), and pages of ids for the CLI's lists across merchants,
 * newest first, one more than `limit` so the caller knows whether another page follows. The
 * rows themselves are read through the usual per-object functions.
 */

export async function planOwner(db: Db, planId: string): Promise<string | undefined> {
  return (await db.get<{ m: string }>('SELECT merchant_id AS m FROM plans WHERE id = @planId', { planId }))?.m;
}

/** A subscription by its id or its code. */
export function subscriptionOwner(
  db: Db,
  idOrCode: string,
): Promise<{ id: string; code: string; merchantId: string } | undefined> {
  return db.get(
    'SELECT id, code, merchant_id AS "merchantId" FROM subscriptions WHERE id = @ref OR code = @ref LIMIT 1',
    {
      ref: idOrCode,
    },
  );
}

export async function transactionOwner(db: Db, id: string): Promise<string | undefined> {
  return (await db.get<{ m: string }>('SELECT merchant_id AS m FROM transactions WHERE id = @id', { id }))?.m;
}

/** `(CAST(@p AS type) IS NULL OR column = CAST(@p AS type))` for each optional filter. */
const optional = (filters: Array<[column: string, param: string, type?: 'INTEGER']>): string =>
  filters
    .map(([c, p, type = 'TEXT']) => `(CAST(@${p} AS ${type}) IS NULL OR ${c} = CAST(@${p} AS ${type}))`)
    .join(' AND ');

function page(db: Db, table: string, where: string, order: string, args: Record<string, unknown>, w: PageWindow) {
  return db.all<OwnedId>(
    `SELECT id, merchant_id AS "merchantId" FROM ${table} WHERE ${where} ORDER BY ${order} LIMIT @limit OFFSET @offset`,
    { ...args, limit: w.limit + 1, offset: w.offset },
  );
}

const newest = (db: Db) => `created_at DESC, ${db.dialect.bytewise('id')} DESC`;

export function pagePlanIds(
  db: Db,
  f: { merchantId?: string | undefined; status?: string | undefined } & PageWindow,
): Promise<OwnedId[]> {
  const where = optional([
    ['merchant_id', 'merchantId'],
    ['status', 'status'],
  ]);
  return page(db, 'plans', where, newest(db), { merchantId: f.merchantId ?? null, status: f.status ?? null }, f);
}

export function pageSubscriptionIds(
  db: Db,
  f: { merchantId?: string | undefined; userId?: string | undefined; status?: string | undefined } & PageWindow,
): Promise<OwnedId[]> {
  const where = optional([
    ['merchant_id', 'merchantId'],
    ['user_id', 'userId'],
    ['status', 'status'],
  ]);
  const args = { merchantId: f.merchantId ?? null, userId: f.userId ?? null, status: f.status ?? null };
  return page(db, 'subscriptions', where, newest(db), args, f);
}

export function pageTransactionIds(
  db: Db,
  f: { merchantId?: string | undefined; status?: number | undefined } & PageWindow,
): Promise<OwnedId[]> {
  const where = optional([
    ['merchant_id', 'merchantId'],
    ['status', 'status', 'INTEGER'],
  ]);
  return page(db, 'transactions', where, newest(db), { merchantId: f.merchantId ?? null, status: f.status ?? null }, f);
}

export function pageEventIds(
  db: Db,
  f: { merchantId?: string | undefined; status?: string | undefined; subscriptionId?: string | undefined } & PageWindow,
): Promise<OwnedId[]> {
  const where = optional([
    ['status', 'status'],
    ['merchant_id', 'merchantId'],
    ['subscription_id', 'subscriptionId'],
  ]);
  const args = { merchantId: f.merchantId ?? null, status: f.status ?? null, subscriptionId: f.subscriptionId ?? null };
  return page(db, 'outbox_events', where, 'seq DESC', args, f);
}
