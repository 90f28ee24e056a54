import type { PlanRow } from '../store.js';
import { plans } from '../tables/index.js';
import { insertRow, selectFrom } from '../tables/rows.js';
import type { Db } from './db.js';

const SELECT = selectFrom(plans);

export async function insertPlan(db: Db, row: PlanRow): Promise<void> {
  await db.run(insertRow(plans), row);
}

export function getPlan(db: Db, merchantId: string, id: string): Promise<PlanRow | undefined> {
  return db.get(`${SELECT} WHERE id = @id AND merchant_id = @merchantId`, { id, merchantId });
}

export function listPlanRows(db: Db, merchantId: string, status?: 'ACTIVE' | 'INACTIVE'): Promise<PlanRow[]> {
  return db.all(
    `${SELECT} WHERE merchant_id = @merchantId AND (CAST(@status AS TEXT) IS NULL OR status = CAST(@status AS TEXT))
     ORDER BY created_at DESC, ${db.dialect.bytewise('id')} DESC`,
    { merchantId, status: status ?? null },
  );
}

export function getPlanInfo(db: Db, planId: string): Promise<{ name: string; description: string | null } | undefined> {
  return db.get('SELECT name, description FROM plans WHERE id = @planId', { planId });
}

export async function setPlanStatus(db: Db, id: string, status: 'ACTIVE' | 'INACTIVE'): Promise<void> {
  await db.run('UPDATE plans SET status = @status WHERE id = @id', { id, status });
}

/**
 * The WHERE clause is the whole check (status, maxSubscriptions), so concurrent callers cannot
 * exceed it: on PostgreSQL a concurrent caller waits for the row lock, then the WHERE is
 * evaluated again against the committed row, so no instance overshoots.
 */
export async function reservePlanSlot(db: Db, planId: string): Promise<boolean> {
  return (
    (await db.run(
      `UPDATE plans SET current_subscriptions = current_subscriptions + 1
       WHERE id = @planId AND status = 'ACTIVE' AND (max_subscriptions = 0 OR current_subscriptions < max_subscriptions)`,
      { planId },
    )) === 1
  );
}

/** plans.currentSubscriptions counts INCOMPLETE + ACTIVE + PAUSED; call when one leaves them. */
export async function releasePlanSlot(db: Db, planId: string): Promise<void> {
  await db.run(
    `UPDATE plans SET current_subscriptions = ${db.dialect.greatest('current_subscriptions - 1', '0')} WHERE id = @planId`,
    { planId },
  );
}
