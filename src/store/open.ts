import type { Store } from './store.js';
import { isPostgresUrl } from './postgres/client.js';
import { openPostgresStore } from './postgres/store.js';
import { openSqliteStore } from './sqlite/index.js';

export { isPostgresUrl };

/**
 * Open the store named by `PAYGATE_DB` / `--db`: a `postgres://` or `postgresql://` URL opens
 * PostgreSQL, anything else is a SQLite file. The engine is chosen here and nowhere else;
 * everything above sees only `Store`.
 */
export async function openStore(db: string, env: NodeJS.ProcessEnv = process.env): Promise<Store> {
  if (isPostgresUrl(db)) return openPostgresStore(db, { env });
  return openSqliteStore(db);
}
