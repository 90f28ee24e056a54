import { and, desc, eq } from 'drizzle-orm';
import type { Db } from './client.js';
import { plans } from './schema/index.js';

export type PlanRow = typeof plans.$inferSelect;

export function insertPlan(db: Db, row: PlanRow): void {
  db.insert(plans).values(row).run();
}

/** A plan of this merchant; another merchant's plan reads as absent (SPEC §2). */
export function getPlan(db: Db, merchantId: string, id: string): PlanRow | undefined {
  return db.select().from(plans).where(and(eq(plans.id, id), eq(plans.merchantId, merchantId))).get();
}

export function listPlanRows(db: Db, merchantId: string, status?: 'ACTIVE' | 'INACTIVE'): PlanRow[] {
  const where = status ? and(eq(plans.merchantId, merchantId), eq(plans.status, status)) : eq(plans.merchantId, merchantId);
  return db.select().from(plans).where(where).orderBy(desc(plans.createdAt), desc(plans.id)).all();
}

export function setPlanStatus(db: Db, id: string, status: 'ACTIVE' | 'INACTIVE'): void {
  db.update(plans).set({ status }).where(eq(plans.id, id)).run();
}
