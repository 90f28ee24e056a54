import type { MigrationStatus, Store } from './store.js';
import { isPostgresUrl } from './postgres/url.js';

export type { MigrationStatus };

export { isPostgresUrl };

/**
 * Open the store named by `PAYGATE_DB` / `--db`: a `postgres://` or `postgresql://` URL opens
 * PostgreSQL, anything else is a SQLite file. The engine is chosen here and nowhere else;
 * everything above sees only `Store`. Each engine (its driver, drizzle and schema) is imported
 * only when chosen: a process works with one of them.
 */
export async function openStore(db: string, env: NodeJS.ProcessEnv = process.env): Promise<Store> {
  if (isPostgresUrl(db)) return (await import('./postgres/store.js')).openPostgresStore(db, { env });
  return (await import('./sqlite/index.js')).openSqliteStore(db);
}

/**
 * The migrations a database still lacks, read without changing it (`paygate db migrate --dry-run`):
 * a SQLite file's __drizzle_migrations, or PostgreSQL's drizzle.__drizzle_migrations.
 */
export async function migrationStatus(db: string): Promise<MigrationStatus> {
  if (isPostgresUrl(db)) return (await import('./postgres/migrate.js')).pgMigrationStatus(db);
  return (await import('./sqlite/client.js')).sqliteMigrationStatus(db);
}
