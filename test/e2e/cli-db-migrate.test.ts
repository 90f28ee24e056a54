import { existsSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { paygate } from '../helpers/cli.js';
import { tempDir } from '../helpers/ctx.js';

const t = tempDir('paygate-migrate-');
afterAll(() => t.cleanup());
const ALL = ['0000_init', '0001_refunds_pending', '0002_partial_indexes'];

/** A database as the release before migration 0002 left it. */
function olderDatabase(db: string): void {
  expect(paygate(['--db', db, 'merchant', 'list']).status).toBe(0);
  const raw = new Database(db);
  raw.exec(`DROP INDEX transactions_page_token; CREATE UNIQUE INDEX transactions_page_token ON transactions (page_token);
            DROP INDEX outbox_subscription; CREATE INDEX outbox_subscription ON outbox_events (subscription_id, seq);`);
  raw.prepare('DELETE FROM __drizzle_migrations WHERE created_at = (SELECT max(created_at) FROM __drizzle_migrations)').run();
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
    expect(paygate(['--db', db, 'db', 'migrate', '--dry-run']).json().pending).toEqual(['0002_partial_indexes']);
    expect(paygate(['--db', db, 'db', 'migrate', '--dry-run']).json().pending).toEqual(['0002_partial_indexes']);
    const r = paygate(['--db', db, 'db', 'migrate']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.json()).toEqual({ database: db, applied: ['0002_partial_indexes'] });
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
