import { asc, eq, sql } from 'drizzle-orm';
import type { Db } from './client.js';
import { merchants } from './schema/index.js';

export type MerchantRow = typeof merchants.$inferSelect;

/** Every API request looks its merchant up: prepared once per connection, not built per call. */
function prepareLookups(db: Db) {
  return {
    byId: db.select().from(merchants).where(eq(merchants.id, sql.placeholder('id'))).prepare(),
    byApiKey: db.select().from(merchants).where(eq(merchants.apiKey, sql.placeholder('apiKey'))).prepare(),
  };
}

const cache = new WeakMap<Db, ReturnType<typeof prepareLookups>>();

function lookups(db: Db): ReturnType<typeof prepareLookups> {
  let l = cache.get(db);
  if (!l) {
    l = prepareLookups(db);
    cache.set(db, l);
  }
  return l;
}

export function getMerchant(db: Db, id: string): MerchantRow | undefined {
  return lookups(db).byId.get({ id });
}

export function getMerchantByApiKey(db: Db, apiKey: string): MerchantRow | undefined {
  return lookups(db).byApiKey.get({ apiKey });
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
