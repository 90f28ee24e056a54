import { Database } from './driver.js';
import { readMigrationFiles } from 'drizzle-orm/migrator';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tableList } from '../copy.js';
import { type MigrationStatus, StoreOpenError } from '../store.js';
import { createPrivateFile, refuseNonDatabase, refuseReadOnlyFile } from './files.js';

export type Sqlite = Database;

const MIGRATIONS_FOLDER = resolve(dirname(fileURLToPath(import.meta.url)), '../../../drizzle');

/**
 * Open (creating if needed) and migrate the database. Pragmas per SPEC §1: WAL, synchronous=FULL
 * (a success answer means the change is on disk), foreign keys on, a busy timeout so several
 * processes (renew, serve) can share the file.
 */
export function openSqlite(path: string, opts: { readonly?: boolean; besideOpen?: boolean } = {}): Sqlite {
  if (path !== ':memory:') {
    const dir = dirname(resolve(path));
    if (!existsSync(dir)) throw new StoreOpenError(`database directory does not exist: ${dir}`);
  }
  // `besideOpen`: this process already holds the file open through SQLite, whose open checked it.
  // The checks read the file through a descriptor of their own, and closing ANY descriptor of a
  // file drops every POSIX lock the process holds on it, SQLite's included: another process
  // would then take the database for unused and delete its WAL under the open connection.
  if (path !== ':memory:' && path !== '' && !opts.besideOpen) refuseNonDatabase(path);
  let sqlite: Sqlite;
  try {
    // An existing file keeps the mode its owner gave it: the CLI warns when others can read it.
    if (path !== ':memory:' && path !== '' && !opts.readonly && !createPrivateFile(path)) refuseReadOnlyFile(path);
    sqlite = new Database(path, { readonly: opts.readonly ?? false });
  } catch (e) {
    if (e instanceof StoreOpenError) throw e;
    throw new StoreOpenError(`cannot open database ${path}: ${(e as Error).message}`);
  }
  try {
    sqlite.pragma('busy_timeout = 10000');
    if (!opts.readonly) {
      const migrations = readMigrationFiles({ migrationsFolder: MIGRATIONS_FOLDER });
      refuseForeignDatabase(sqlite, path, migrations[0]?.folderMillis ?? 0);
      sqlite.pragma('journal_mode = WAL');
      sqlite.pragma('synchronous = FULL');
      // Off while migrating (SQLite's own procedure for rebuilding a table): dropping a rebuilt
      // table must not fire its references' ON DELETE actions (cards → subscriptions.card_id).
      // The pragma is a no-op inside a transaction, so it is set around it; migrate() checks keys.
      sqlite.pragma('foreign_keys = OFF');
      migrate(sqlite, migrations);
      sqlite.pragma('foreign_keys = ON');
    }
  } catch (e) {
    sqlite.close();
    if (e instanceof StoreOpenError) throw e;
    throw new StoreOpenError(`cannot open database ${path}: ${(e as Error).message}`);
  }
  return sqlite;
}

/** The first migration's journal time before it was generated again on its first day (ef6ea14). */
const FIRST_MIGRATION_BEFORE_REGENERATION = 1795344240550;

/**
 * Refuse a SQLite database another application made: migrating paygate's tables into it and
 * switching it to WAL (a mode the file keeps) would change someone else's database, as a mistyped
 * --db must not (SPEC §1). Reading its schema writes nothing. A new or empty file opens, and a
 * database paygate migrated: its migration table starts with paygate's first migration (its
 * journal time, which an edit of that file's text never changed). A drizzle table alone is not
 * enough — every application migrated by drizzle-kit has one.
 */
function refuseForeignDatabase(sqlite: Sqlite, path: string, firstMigrationMillis: number): void {
  const names = sqlite
    .prepare(
      "SELECT name FROM sqlite_master WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name",
    )
    .pluck()
    .all() as string[];
  if (names.length === 0) return;
  if (names.includes('__drizzle_migrations')) {
    const first = sqlite.prepare('SELECT min(created_at) FROM __drizzle_migrations').pluck().get() as number | null;
    if (first !== null && [firstMigrationMillis, FIRST_MIGRATION_BEFORE_REGENERATION].includes(Number(first))) return;
  }
  throw new StoreOpenError(
    `${path} is another application's SQLite database (tables: ${tableList(names)}), not paygate's; nothing was changed: name paygate's own database, or a new file`,
  );
}

/**
 * Apply drizzle-kit's migrations (same bookkeeping table as drizzle's migrator) inside one
 * IMMEDIATE transaction, so processes opening a new database together migrate it once.
 * A database that has migrations this build does not know was written by a newer paygate.
 */
function migrate(sqlite: Sqlite, migrations: ReturnType<typeof readMigrationFiles>): void {
  const latest = migrations.at(-1)?.folderMillis ?? 0;
  const appliedLatest = (): number => {
    const exists = sqlite
      .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '__drizzle_migrations'")
      .get();
    if (!exists) return 0;
    const row = sqlite.prepare('SELECT max(created_at) AS at FROM __drizzle_migrations').get() as { at: number | null };
    return Number(row.at ?? 0);
  };
  const check = (applied: number): boolean => {
    if (applied > latest) {
      throw new StoreOpenError(
        'this database was written by a newer version of paygate (its schema is ahead of this build); upgrade paygate to open it',
      );
    }
    return applied === latest;
  };
  if (check(appliedLatest())) return;
  sqlite
    .transaction(() => {
      const applied = appliedLatest();
      if (check(applied)) return;
      sqlite.exec(
        'CREATE TABLE IF NOT EXISTS __drizzle_migrations (id INTEGER PRIMARY KEY AUTOINCREMENT, hash text NOT NULL, created_at numeric)',
      );
      const record = sqlite.prepare('INSERT INTO __drizzle_migrations (hash, created_at) VALUES (?, ?)');
      for (const m of migrations) {
        if (m.folderMillis <= applied) continue;
        for (const stmt of m.sql) if (stmt.trim()) sqlite.exec(stmt);
        record.run(m.hash, m.folderMillis);
      }
      const broken = sqlite.prepare('PRAGMA foreign_key_check').all();
      if (broken.length > 0)
        throw new StoreOpenError(`migration left ${broken.length} broken references; nothing was changed`);
    })
    .immediate();
}

/**
 * Which of this build's migrations a SQLite database still lacks, read without changing it (a
 * missing file is not created): `paygate db migrate --dry-run`. A database with migrations newer
 * than the build is refused like on open.
 */
export function sqliteMigrationStatus(path: string): MigrationStatus {
  const journal = JSON.parse(readFileSync(resolve(MIGRATIONS_FOLDER, 'meta/_journal.json'), 'utf8')) as {
    entries: Array<{ tag: string; when: number }>;
  };
  const known = journal.entries.map((e) => e.tag);
  if (path === ':memory:' || !existsSync(path)) return { known, pending: known, exists: false };
  refuseNonDatabase(path);
  let sqlite: Sqlite;
  try {
    sqlite = new Database(path, { readonly: true, fileMustExist: true });
  } catch (e) {
    throw new StoreOpenError(`cannot open database ${path}: ${(e as Error).message}`);
  }
  try {
    const table = sqlite
      .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '__drizzle_migrations'")
      .get();
    const applied = table
      ? Number(
          (sqlite.prepare('SELECT max(created_at) AS at FROM __drizzle_migrations').get() as { at: number | null })
            .at ?? 0,
        )
      : 0;
    const latest = journal.entries.at(-1)?.when ?? 0;
    if (applied > latest) {
      throw new StoreOpenError(
        'this database was written by a newer version of paygate (its schema is ahead of this build); upgrade paygate to open it',
      );
    }
    return { known, pending: journal.entries.filter((e) => e.when > applied).map((e) => e.tag), exists: true };
  } catch (e) {
    if (e instanceof StoreOpenError) throw e;
    throw new StoreOpenError(`cannot read database ${path}: ${(e as Error).message}`);
  } finally {
    sqlite.close();
  }
}
