import { readMigrationFiles } from 'drizzle-orm/migrator';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import { StoreOpenError } from '../store.js';

export const MIGRATIONS_FOLDER = resolve(dirname(fileURLToPath(import.meta.url)), '../../../drizzle/postgres');

/**
 * Session-level advisory lock held while migrating: processes opening one database together
 * queue on it, and whoever comes second finds the work done. Fixed for every paygate build
 * (the bytes of "paygate" as a number, plus 1), so all versions agree on it.
 */
export const MIGRATION_LOCK_KEY = '31632371444970598';

/** Same text as the SQLite engine's, so an operator sees one message whichever engine they run. */
export const NEWER_SCHEMA_MESSAGE =
  'this database was written by a newer version of paygate (its schema is ahead of this build); upgrade paygate to open it';

/**
 * drizzle's own bookkeeping (schema "drizzle", table __drizzle_migrations, created_at = the
 * migration's folder timestamp), so drizzle-kit tools read the same state. Everything new is
 * applied in one transaction: a crash mid-way leaves the previous version intact.
 */
export async function migrate(pool: pg.Pool, migrationsFolder = MIGRATIONS_FOLDER): Promise<void> {
  const migrations = readMigrationFiles({ migrationsFolder });
  const latest = migrations.at(-1)?.folderMillis ?? 0;
  const client = await pool.connect();
  // A connection dropped between statements fails the next one; the event must not go unhandled.
  const ignore = (): void => {};
  client.on('error', ignore);
  let broken: Error | undefined;
  try {
    await client.query('SELECT pg_advisory_lock($1::bigint)', [MIGRATION_LOCK_KEY]);
    try {
      const applied = await appliedLatest(client);
      if (applied > latest) throw new StoreOpenError(NEWER_SCHEMA_MESSAGE);
      if (applied === latest) return;
      await client.query('BEGIN');
      try {
        await client.query('CREATE SCHEMA IF NOT EXISTS drizzle');
        await client.query(
          'CREATE TABLE IF NOT EXISTS drizzle.__drizzle_migrations (id SERIAL PRIMARY KEY, hash text NOT NULL, created_at bigint)',
        );
        for (const m of migrations) {
          if (m.folderMillis <= applied) continue;
          for (const stmt of m.sql) if (stmt.trim()) await client.query(stmt);
          await client.query('INSERT INTO drizzle.__drizzle_migrations (hash, created_at) VALUES ($1, $2)', [
            m.hash,
            m.folderMillis,
          ]);
        }
        await client.query('COMMIT');
      } catch (e) {
        await client.query('ROLLBACK').catch(() => {});
        throw e;
      }
    } finally {
      await client.query('SELECT pg_advisory_unlock($1::bigint)', [MIGRATION_LOCK_KEY]).catch((e: Error) => {
        broken = e;
      });
    }
  } finally {
    // A connection that failed to unlock is dropped, which releases the lock with it.
    client.removeListener('error', ignore);
    client.release(broken ?? false);
  }
}

async function appliedLatest(client: pg.PoolClient): Promise<number> {
  const exists = await client.query<{ t: string | null }>(
    "SELECT to_regclass('drizzle.__drizzle_migrations')::text AS t",
  );
  if (!exists.rows[0]?.t) return 0;
  const row = await client.query<{ at: string | number | null }>(
    'SELECT max(created_at) AS at FROM drizzle.__drizzle_migrations',
  );
  return Number(row.rows[0]?.at ?? 0);
}
