import type { PlanRow } from '../store.js';
import type { Sqlite } from './client.js';
import { prepared } from './prepared.js';
import { plans } from '../tables/index.js';
import { insertRow, selectFrom } from '../tables/rows.js';

const SELECT = selectFrom(plans);

export function insertPlan(sqlite: Sqlite, row: PlanRow): void {
  prepared(sqlite, insertRow(plans)).run(row);
}

export function getPlan(sqlite: Sqlite, merchantId: string, id: string): PlanRow | undefined {
  return prepared(sqlite, `${SELECT} WHERE id = ? AND merchant_id = ?`).get(id, merchantId) as PlanRow | undefined;
}

export function listPlanRows(sqlite: Sqlite, merchantId: string, status?: 'ACTIVE' | 'INACTIVE'): PlanRow[] {
  return prepared(
    sqlite,
    `${SELECT} WHERE merchant_id = @merchantId AND (@status IS NULL OR status = @status) ORDER BY created_at DESC, id DESC`,
  ).all({
    merchantId,
    status: status ?? null,
  }) as PlanRow[];
}

export function getPlanInfo(sqlite: Sqlite, planId: string): { name: string; description: string | null } | undefined {
  return prepared(sqlite, 'SELECT name, description FROM plans WHERE id = ?').get(planId) as
    | { name: string; description: string | null }
    | undefined;
}

export function setPlanStatus(sqlite: Sqlite, id: string, status: 'ACTIVE' | 'INACTIVE'): void {
  prepared(sqlite, 'UPDATE plans SET status = ? WHERE id = ?').run(status, id);
}

/** The WHERE clause is the whole check (status, maxSubscriptions), so concurrent callers cannot exceed it. */
export function reservePlanSlot(sqlite: Sqlite, planId: string): boolean {
  return (
    prepared(
      sqlite,
      `UPDATE plans SET current_subscriptions = current_subscriptions + 1
       WHERE id = ? AND status = 'ACTIVE' AND (max_subscriptions = 0 OR current_subscriptions < max_subscriptions)`,
    ).run(planId).changes === 1
  );
}

/** plans.currentSubscriptions counts INCOMPLETE + ACTIVE + PAUSED; call when one leaves them. */
export function releasePlanSlot(sqlite: Sqlite, planId: string): void {
  prepared(sqlite, 'UPDATE plans SET current_subscriptions = max(current_subscriptions - 1, 0) WHERE id = ?').run(
    planId,
  );
}
