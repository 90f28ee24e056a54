import type { PlanRow } from '../store.js';
import { plans } from '../tables/index.js';
import { insertRow, selectFrom } from '../tables/rows.js';
import { all, get, run, type Conn } from './query.js';

const SELECT = selectFrom(plans);

export async function insertPlan(db: Conn, row: PlanRow): Promise<void> {
  await run(db, insertRow(plans), row);
}

export function getPlan(db: Conn, merchantId: string, id: string): Promise<PlanRow | undefined> {
  return get(db, `${SELECT} WHERE id = @id AND merchant_id = @merchantId`, { id, merchantId });
}

export function listPlanRows(db: Conn, merchantId: string, status?: 'ACTIVE' | 'INACTIVE'): Promise<PlanRow[]> {
  return all(
    db,
    `${SELECT} WHERE merchant_id = @merchantId AND (@status::text IS NULL OR status = @status::text) ORDER BY created_at DESC, id COLLATE "C" DESC`,
    { merchantId, status: status ?? null },
  );
}

export function getPlanInfo(
  db: Conn,
  planId: string,
): Promise<{ name: string; description: string | null } | undefined> {
  return get(db, 'SELECT name, description FROM plans WHERE id = @planId', { planId });
}

export async function setPlanStatus(db: Conn, id: string, status: 'ACTIVE' | 'INACTIVE'): Promise<void> {
  await run(db, 'UPDATE plans SET status = @status WHERE id = @id', { id, status });
}

/**
 * The WHERE clause is the whole check. Under READ COMMITTED a concurrent caller waits for the row
 * lock, then PostgreSQL re-evaluates the WHERE against the committed row: no instance overshoots.
 */
export async function reservePlanSlot(db: Conn, planId: string): Promise<boolean> {
  return (
    (await run(
      db,
      `UPDATE plans SET current_subscriptions = current_subscriptions + 1
       WHERE id = @planId AND status = 'ACTIVE' AND (max_subscriptions = 0 OR current_subscriptions < max_subscriptions)`,
      { planId },
    )) === 1
  );
}

export async function releasePlanSlot(db: Conn, planId: string): Promise<void> {
  await run(db, 'UPDATE plans SET current_subscriptions = greatest(current_subscriptions - 1, 0) WHERE id = @planId', {
    planId,
  });
}
