import { existsSync, readFileSync } from 'node:fs';
import { readMigrationFiles } from 'drizzle-orm/migrator';
import { join } from 'node:path';
import { Database } from '../../src/store/sqlite/driver.js';
import { afterAll, describe, expect, it } from 'vitest';
import { paygate } from '../helpers/cli.js';
import { tempDir } from '../helpers/env.js';

const t = tempDir('paygate-migrate-');
afterAll(() => t.cleanup());
const DRIZZLE = join(import.meta.dirname, '../../drizzle');
const journal = JSON.parse(readFileSync(join(DRIZZLE, 'meta/_journal.json'), 'utf8')) as {
  entries: Array<{ tag: string }>;
};
const ALL = journal.entries.map((e) => e.tag);
const LAST = ALL.at(-1) as string;

/** A database as the release before the newest migration left it: every migration but the last, applied as the migrator does. */
function olderDatabase(db: string): void {
  const migrations = readMigrationFiles({ migrationsFolder: DRIZZLE });
  const raw = new Database(db);
  raw.exec(
    'CREATE TABLE __drizzle_migrations (id INTEGER PRIMARY KEY AUTOINCREMENT, hash text NOT NULL, created_at numeric)',
  );
  for (const m of migrations.slice(0, -1)) {
    for (const stmt of m.sql) if (stmt.trim()) raw.exec(stmt);
    raw.prepare('INSERT INTO __drizzle_migrations (hash, created_at) VALUES (?, ?)').run(m.hash, m.folderMillis);
  }
  raw.close();
}

describe('paygate db migrate', () => {
  it('--dry-run on a database that does not exist lists every migration and creates nothing', () => {
    const db = join(t.dir, 'none.db');
    const r = paygate(['--db', db, 'db', 'migrate', '--dry-run']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.json()).toEqual({ database: db, exists: false, pending: ALL });
    expect(existsSync(db)).toBe(false);
  });

  it('--dry-run lists what an older database lacks without applying it; then migrate applies exactly that', () => {
    const db = join(t.dir, 'old.db');
    olderDatabase(db);
    expect(paygate(['--db', db, 'db', 'migrate', '--dry-run']).json().pending).toEqual([LAST]);
    expect(paygate(['--db', db, 'db', 'migrate', '--dry-run']).json().pending).toEqual([LAST]);
    const r = paygate(['--db', db, 'db', 'migrate']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.json()).toEqual({ database: db, applied: [LAST] });
    expect(paygate(['--db', db, 'db', 'migrate', '--dry-run']).json().pending).toEqual([]);
    expect(paygate(['--db', db, 'db', 'migrate']).json().applied).toEqual([]);
  });

  it('refuses a database written by a newer paygate, as a start-up error', () => {
    const db = join(t.dir, 'newer.db');
    expect(paygate(['--db', db, 'merchant', 'list']).status).toBe(0);
    const raw = new Database(db);
    raw.prepare("INSERT INTO __drizzle_migrations (hash, created_at) VALUES ('future', 99999999999999)").run();
    raw.close();
    const r = paygate(['--db', db, 'db', 'migrate', '--dry-run']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/written by a newer version of paygate/);
  });
});
