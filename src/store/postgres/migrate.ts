import { readMigrationFiles } from 'drizzle-orm/migrator';
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { type MigrationStatus, StoreOpenError } from '../store.js';
import { redactUrl } from './url.js';

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

/**
 * Which of this build's migrations the database at `url` still lacks, read without changing it
 * (`paygate db migrate --dry-run`): one connection, two SELECTs on drizzle's bookkeeping, no lock
 * taken, nothing created. A database migrated by a newer paygate is refused as on open.
 */
export async function pgMigrationStatus(url: string, migrationsFolder = MIGRATIONS_FOLDER): Promise<MigrationStatus> {
  const journal = JSON.parse(readFileSync(resolve(migrationsFolder, 'meta/_journal.json'), 'utf8')) as {
    entries: Array<{ tag: string; when: number }>;
  };
  const known = journal.entries.map((e) => e.tag);
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000, application_name: 'paygate' });
  client.on('error', () => {});
  let applied: number;
  try {
    await client.connect();
    applied = await appliedLatest(client);
  } catch (e) {
    throw new StoreOpenError(`cannot open database ${redactUrl(url)}: ${(e as Error).message}`);
  } finally {
    await client.end().catch(() => {});
  }
  if (applied > (journal.entries.at(-1)?.when ?? 0)) throw new StoreOpenError(NEWER_SCHEMA_MESSAGE);
  return { known, pending: journal.entries.filter((e) => e.when > applied).map((e) => e.tag), exists: true };
}

async function appliedLatest(client: pg.ClientBase): Promise<number> {
  const exists = await client.query<{ t: string | null }>(
    "SELECT to_regclass('drizzle.__drizzle_migrations')::text AS t",
  );
  if (!exists.rows[0]?.t) return 0;
  const row = await client.query<{ at: string | number | null }>(
    'SELECT max(created_at) AS at FROM drizzle.__drizzle_migrations',
  );
  return Number(row.rows[0]?.at ?? 0);
}
