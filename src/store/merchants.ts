import { asc, eq } from 'drizzle-orm';
import type { Db } from './client.js';
import { merchants } from './schema/index.js';

export type MerchantRow = typeof merchants.$inferSelect;

export function getMerchant(db: Db, id: string): MerchantRow | undefined {
  return db.select().from(merchants).where(eq(merchants.id, id)).get();
}

export function getMerchantByApiKey(db: Db, apiKey: string): MerchantRow | undefined {
  return db.select().from(merchants).where(eq(merchants.apiKey, apiKey)).get();
}

export function listMerchantRows(db: Db): MerchantRow[] {
  return db.select().from(merchants).orderBy(asc(merchants.createdAt), asc(merchants.id)).all();
}

export function insertMerchant(db: Db, row: MerchantRow): void {
  db.insert(merchants).values(row).run();
}

export function updateMerchantRow(db: Db, id: string, patch: Partial<MerchantRow>): void {
  db.update(merchants).set(patch).where(eq(merchants.id, id)).run();
}
