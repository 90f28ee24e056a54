import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSqlite } from '../../src/store/sqlite/client.js';
import { Database } from '../../src/store/sqlite/driver.js';
import { paygate } from '../helpers/cli.js';
import { tempDir } from '../helpers/env.js';
import { interruptWhen } from '../helpers/interrupt.js';
import { bigDatabase, populate, sqliteTables, type Populated } from '../helpers/populated-db.js';
import { paygatePtyRun } from '../helpers/pty.js';

let dir: string;
let cleanup: () => void;
let source: string;
let shop: Populated;

beforeAll(() => {
  ({ dir, cleanup } = tempDir());
  source = join(dir, 'source.db');
  shop = populate(source);
}, 120_000);
afterAll(() => cleanup());

const sha = (file: string): string => createHash('sha256').update(readFileSync(file)).digest('hex');

describe('paygate db copy --to FILE (SQLite → SQLite)', () => {
  let copy: string;

  beforeAll(() => {
    copy = join(dir, 'copy.db');
  });

  it('copies every table row by row and prints rows per table, each checked against the source', () => {
    const before = sqliteTables(source);
    for (const [table, rows] of Object.entries(before)) expect(rows.length, `${table} is populated`).toBeGreaterThan(0);
    // meta carries the time zone and the vault key check value: both travel with the rows.
    expect((before.meta as Array<{ key: string }>).map((r) => r.key)).toEqual(
      expect.arrayContaining(['tz', 'vault_kcv']),
    );

    const r = paygate(['--db', source, 'db', 'copy', '--to', copy, '--json']);
    expect(r.stderr).not.toMatch(/error/);
    expect(r.status).toBe(0);
    const counts = Object.fromEntries(Object.entries(before).map(([t, rows]) => [t, rows.length]));
    expect(r.json()).toEqual({ tables: counts });
    expect(sqliteTables(copy)).toEqual(before);
  });

  it('the copy is a private file (0600)', () => {
    expect(statSync(copy).mode & 0o777).toBe(0o600);
  });

  it('the copy opens with the same vault key and answers merchant list, sub show and an idempotent PAY replay', () => {
    const list = (db: string) => paygate(['--db', db, 'merchant', 'list', '--json']);
    expect(list(copy).status).toBe(0);
    expect(list(copy).json()).toEqual(list(source).json());

    const show = paygate(['--db', copy, 'sub', 'show', shop.subscriptionCode, '--json']);
    expect(show.status).toBe(0);
    expect(show.json()).toEqual(paygate(['--db', source, 'sub', 'show', shop.subscriptionCode, '--json']).json());
    expect(show.json()).toMatchObject({ subscriptionId: shop.subscriptionId, status: 'ACTIVE' });

    const replay = paygate(['--db', copy, ...shop.payArgs, '--json']);
    expect(replay.status).toBe(0);
    // The same transaction, in its state now (partly refunded), exactly as the source answers it.
    expect(replay.json()).toMatchObject({ transactionOrderId: shop.paidTx, status: '400010' });
    expect(replay.json()).toEqual(paygate(['--db', source, ...shop.payArgs, '--json']).json());
    expect(sqliteTables(copy).transactions).toHaveLength(sqliteTables(source).transactions?.length ?? -1);
  });

  it('a copy under another vault key is refused like its source would be', () => {
    const other = Buffer.alloc(32, 9).toString('base64');
    const r = paygate(['--db', copy, 'merchant', 'list'], { env: { PAYGATE_VAULT_KEY: other } });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/vault key/);
  });

  it('a database whose key is its <db>.key file: the key file is copied beside the copy (0600), which opens with it', () => {
    const noEnv = { env: { PAYGATE_VAULT_KEY: '' } };
    const own = join(dir, 'own.db');
    expect(paygate(['--db', own, 'merchant', 'create', '--name', 'Keyed', '--json'], noEnv).status).toBe(0);
    expect(existsSync(`${own}.key`)).toBe(true);
    const target = join(dir, 'own-copy.db');
    const r = paygate(['--db', own, 'db', 'copy', '--to', target], noEnv);
    expect(r.status).toBe(0);
    expect(readFileSync(`${target}.key`, 'utf8')).toBe(readFileSync(`${own}.key`, 'utf8'));
    expect(statSync(`${target}.key`).mode & 0o777).toBe(0o600);
    const list = paygate(['--db', target, 'merchant', 'list', '--json'], noEnv);
    expect(list.status).toBe(0);
    expect(list.json()).toEqual(paygate(['--db', own, 'merchant', 'list', '--json'], noEnv).json());
  });

  it('a non-empty target is refused with 1001 and left exactly as it was', () => {
    const hash = sha(copy);
    const r = paygate(['--db', source, 'db', 'copy', '--to', copy]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^error 1001: to: .*copy\.db is not empty \(meta: \d+, merchants: 2, /);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(sha(copy)).toBe(hash);
  });

  it("another application's SQLite file is refused with 1001 naming its tables, and left exactly as it was", () => {
    const foreign = join(dir, 'foreign.db');
    const other = new Database(foreign);
    other.exec('CREATE TABLE foo (x); INSERT INTO foo VALUES (1), (2); CREATE TABLE bar (y)');
    other.close();
    const hash = sha(foreign);
    const r = paygate(['--db', source, 'db', 'copy', '--to', foreign]);
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(
      `error 1001: to: ${foreign} is not empty (tables that are not paygate's: bar, foo); db copy only fills an empty database\n`,
    );
    // Not migrated, not switched to WAL, no key written beside it.
    expect(sha(foreign)).toBe(hash);
    for (const f of ['-wal', '-shm', '-journal', '.key']) expect(existsSync(`${foreign}${f}`), f).toBe(false);
  });

  it('an existing database with no rows (migrated, never used) is filled', () => {
    const empty = join(dir, 'empty.db');
    openSqlite(empty).close();
    const r = paygate(['--db', source, 'db', 'copy', '--to', empty, '--json']);
    expect(r.status).toBe(0);
    expect(sqliteTables(empty)).toEqual(sqliteTables(source));
  });

  it('a target in a directory that does not exist is error 1001 (exit 1), nothing created', () => {
    const r = paygate(['--db', source, 'db', 'copy', '--to', join(dir, 'missing', 'x.db')]);
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(`error 1001: to: directory does not exist: ${join(dir, 'missing')}\n`);
    expect(existsSync(join(dir, 'missing'))).toBe(false);
  });

  // `--to d/` created a file `d` and `d.key`: the operator meant a directory.
  it('a target ending in / (the directory there or not) or naming a directory is error 1001, nothing created', () => {
    const existing = join(dir, 'backups');
    mkdirSync(existing);
    for (const to of [`${join(dir, 'meant-dir')}/`, `${existing}/`, existing]) {
      const r = paygate(['--db', source, 'db', 'copy', '--to', to]);
      expect(r.status, to).toBe(1);
      expect(r.stderr).toBe(
        `error 1001: to: ${to} is a directory: name the database file, for example ${join(resolve(to), 'paygate.db')}\n`,
      );
    }
    expect(readdirSync(dir).filter((f) => f.startsWith('meant-dir'))).toEqual([]);
    expect(readdirSync(existing)).toEqual([]);
  });

  it('a URL of another kind is error 1001 naming what is accepted', () => {
    const r = paygate(['--db', source, 'db', 'copy', '--to', 'mysql://shop@127.0.0.1/paygate']);
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(
      'error 1001: to: a URL must be postgres://… or postgresql://…; a SQLite target is a file path\n',
    );
  });

  it('an unreachable PostgreSQL URL is a one-line startup error (exit 2) without the password', () => {
    const r = paygate(['--db', source, 'db', 'copy', '--to', 'postgres://paygate:s3cret@127.0.0.1:1/paygate']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(
      /^error startup: cannot open database postgres:\/\/paygate:\*\*\*@127\.0\.0\.1:1\/paygate: .*ECONNREFUSED/,
    );
    expect(r.stderr).not.toContain('s3cret');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('on a terminal a progress bar runs on stderr and the human summary names every table', async () => {
    const r = await paygatePtyRun(['--db', source, 'db', 'copy', '--to', join(dir, 'tty.db')]);
    expect(r.status).toBe(0);
    const total = Object.values(sqliteTables(source)).reduce((a, rows) => a + rows.length, 0);
    expect(r.output).toContain(`] ${total}/${total} 100%`);
    expect(r.output).toMatch(/outbox_events\s+\d+/);
    expect(r.output).toContain("every table's row count matches");
  });
});

/** Rows of sandbox_charges in the SQLite file `db` as another process sees them now (0 before it exists). */
function ledgerRows(db: string): number {
  try {
    const sqlite = new Database(db, { readonly: true, fileMustExist: true });
    try {
      return (sqlite.prepare('SELECT count(*) AS n FROM sandbox_charges').get() as { n: number }).n;
    } finally {
      sqlite.close();
    }
  } catch {
    return 0;
  }
}

describe('an interrupted db copy (SQLite target) leaves the target as it was', () => {
  const ROWS = 400_000;
  let big: string;

  beforeAll(() => {
    big = join(dir, 'big.db');
    bigDatabase(big, ROWS);
  }, 120_000);

  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)(
    '%s mid-copy: the file the copy created is removed, exit %d with one line; copying again works',
    async (signal, status) => {
      const target = join(dir, `interrupted-${signal}.db`);
      const r = await interruptWhen(['--db', big, 'db', 'copy', '--to', target], signal, () => ledgerRows(target));
      expect(r.seen).toBeGreaterThan(0);
      expect(r.signal).toBeNull();
      expect(r.status, r.stderr).toBe(status);
      expect(r.stderr).toBe(
        `db copy interrupted: nothing was copied (${target}, which the copy created, was removed)\n`,
      );
      expect(r.stdout).toBe('');
      for (const f of ['', '-wal', '-shm', '-journal', '.key']) expect(existsSync(`${target}${f}`), f).toBe(false);

      const again = paygate(['--db', big, 'db', 'copy', '--to', target, '--json']);
      expect(again.status, again.stderr).toBe(0);
      expect(again.json().tables.sandbox_charges).toBe(ROWS);
    },
    120_000,
  );

  it('an existing database with no rows is emptied again (and stays a paygate database); copying again works', async () => {
    const target = join(dir, 'interrupted-existing.db');
    openSqlite(target).close();
    const r = await interruptWhen(['--db', big, 'db', 'copy', '--to', target], 'SIGINT', () => ledgerRows(target));
    expect(r.status, r.stderr).toBe(130);
    expect(r.stderr).toBe(`db copy interrupted: nothing was copied (${target} is empty again)\n`);
    for (const [table, rows] of Object.entries(sqliteTables(target))) expect(rows, table).toEqual([]);

    const again = paygate(['--db', big, 'db', 'copy', '--to', target, '--json']);
    expect(again.status, again.stderr).toBe(0);
    expect(again.json().tables.sandbox_charges).toBe(ROWS);
  }, 120_000);
});
