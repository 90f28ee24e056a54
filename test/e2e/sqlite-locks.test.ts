import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSqliteStore, type SqliteStore } from '../../src/store/sqlite/index.js';
import { tempDir } from '../helpers/env.js';

/**
 * An open store keeps SQLite's locks on its database file. Closing any descriptor of a file drops
 * every POSIX lock the process holds on it, so a check that opened the file itself while a
 * connection was open (the reader's header check did) left the database looking unused: the next
 * process to close it (an operator's sqlite3, a backup script) deleted the WAL under the open
 * connection, and what the store committed afterwards was lost with the process.
 */
let dir: string;
let cleanup: () => void;
let store: SqliteStore;
beforeAll(() => ({ dir, cleanup } = tempDir()));
afterAll(async () => {
  await store?.close();
  cleanup();
});

/**
 * Debian's sqlite3 shell opens the database, counts a table's rows and closes it, as an operator
 * does. (better-sqlite3 keeps the WAL when it closes, so it would not show the loss.)
 */
function operatorCounts(db: string, table: string): number {
  const r = spawnSync(SQLITE3, [db, `SELECT count(*) FROM ${table}`], { encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  return Number(r.stdout.trim());
}

/** Without Debian's sqlite3 the test is skipped, saying so; with CI=true a missing shell fails it. */
const SQLITE3 = '/usr/bin/sqlite3';
const skip = !existsSync(SQLITE3) && process.env.CI !== 'true';
if (skip) console.warn(`sqlite-locks: ${SQLITE3} not found (apt-get install sqlite3): skipped`);

describe.skipIf(skip)('an open SQLite store keeps its locks', () => {
  it('the sqlite3 shell opening and closing the database leaves the WAL, and sees what the store commits after', async () => {
    const db = join(dir, 'locked.db');
    store = openSqliteStore(db);
    const put = (key: string) => store.transaction((tx) => tx.setMeta(key, 'v'));
    await put('first');
    expect(operatorCounts(db, 'meta')).toBeGreaterThan(0);
    expect(existsSync(`${db}-wal`)).toBe(true);
    const before = operatorCounts(db, 'meta');
    await put('second');
    expect(operatorCounts(db, 'meta')).toBe(before + 1);
  });
});
