import type { Store } from './store.js';
import { isPostgresUrl } from './postgres/client.js';
import { openPostgresStore } from './postgres/store.js';
import { openSqliteStore } from './sqlite/index.js';
import { sqliteMigrationStatus, type MigrationStatus } from './sqlite/client.js';
import { StoreOpenError } from './store.js';

export type { MigrationStatus };

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

/** The migrations a database still lacks, read without changing it (`paygate db migrate --dry-run`). */
export function migrationStatus(db: string): MigrationStatus {
  if (/^postgres(ql)?:\/\//i.test(db)) {
    throw new StoreOpenError(
      'db migrate --dry-run reads SQLite files; a PostgreSQL database is migrated when paygate opens it (under an advisory lock)',
    );
  }
  return sqliteMigrationStatus(db);
}
