import type { Store } from './store.js';
import { openSqliteStore } from './sqlite/index.js';

/**
 * Open the store named by `PAYGATE_DB` / `--db`: today a SQLite file. The engine is chosen here
 * and nowhere else; everything above sees only `Store`.
 */
export async function openStore(db: string): Promise<Store> {
  return openSqliteStore(db);
}
