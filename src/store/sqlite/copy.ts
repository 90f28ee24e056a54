import { Database, type Statement } from './driver.js';
import { existsSync, rmSync, statSync } from 'node:fs';
import {
  OWN_TABLE_NAMES,
  refuseUnlessEmpty,
  safeInteger,
  type TargetContents,
  type CopyRow,
  type CopySource,
  type CopyTable,
  type CopyTarget,
  type CopyValue,
} from '../copy.js';
import { StoreOpenError } from '../store.js';
import { openSqlite, type Sqlite } from './client.js';
import { refuseInvalidUtf8 } from './copy-utf8.js';
import { refuseNonDatabase } from './files.js';

/** The SQLite half of `db copy` (store/copy.ts orchestrates). */

const quote = (name: string): string => `"${name.replaceAll('"', '""')}"`;
const columnList = (t: CopyTable): string => t.columns.map((c) => quote(c.name)).join(', ');

function toNeutral(t: CopyTable, row: unknown[]): CopyRow {
  return row.map((v, i) => {
    const col = t.columns[i];
    if (v === null || v === undefined) return null;
    if (col?.type === 'boolean') return Number(v) !== 0;
    if (typeof v === 'bigint' || typeof v === 'number') {
      return col?.type === 'text' ? String(v) : safeInteger(v, `${t.name}.${col?.name}`);
    }
    if (typeof v === 'string') return v;
    throw new Error(`${t.name}.${col?.name}: a value of an unexpected type cannot be copied`);
  });
}

const toSqlite = (v: CopyValue): string | number | null => (typeof v === 'boolean' ? (v ? 1 : 0) : v);

/**
 * Read a database from one snapshot: a read transaction on `db` (in WAL mode it sees the last
 * commit when it starts and nothing written after), held until `end`.
 */
export function sqliteCopySource(db: Sqlite): CopySource {
  db.prepare('BEGIN').run();
  // The snapshot begins at the first read, not at BEGIN.
  db.prepare('SELECT count(*) FROM sqlite_master').get();
  const reads = new Map<string, Statement>();
  const readFor = (t: CopyTable, first: boolean): Statement => {
    const id = `${t.name}:${first}`;
    let stmt = reads.get(id);
    if (!stmt) {
      const keys = t.key.map(quote).join(', ');
      const after = first ? '' : `WHERE (${keys}) > (${t.key.map(() => '?').join(', ')})`;
      stmt = db
        .prepare(`SELECT ${columnList(t)} FROM ${quote(t.name)} ${after} ORDER BY ${keys} LIMIT ?`)
        .raw(true)
        .safeIntegers(true);
      reads.set(id, stmt);
    }
    return stmt;
  };
  let ended = false;
  return {
    async count(t) {
      const row = db.prepare(`SELECT count(*) AS n FROM ${quote(t.name)}`).get() as { n: number };
      return row.n;
    },
    async readBatch(t, after, limit) {
      const stmt = readFor(t, after === null);
      const params = after === null ? null : after.map(toSqlite);
      const rows = (stmt.all(...(params ?? []), limit) as unknown[][]).map((r) => toNeutral(t, r));
      refuseInvalidUtf8(db, t, params, limit, rows);
      return rows;
    },
    async end() {
      if (ended) return;
      ended = true;
      if (db.inTransaction) db.prepare('COMMIT').run();
    },
  };
}

/**
 * What the database at `path` holds, read without changing the file: rows of each of `tables`
 * that exists, and every table or view that is not paygate's (SQLite's own sqlite_* aside).
 */
function fileContents(path: string, tables: readonly CopyTable[]): TargetContents {
  let db: Sqlite;
  try {
    db = new Database(path, { readonly: true, fileMustExist: true });
  } catch (e) {
    throw new StoreOpenError(`cannot open database ${path}: ${(e as Error).message}`);
  }
  try {
    const occupied: TargetContents['occupied'] = [];
    for (const t of tables) {
      const exists = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(t.name);
      if (!exists) continue;
      const { n } = db.prepare(`SELECT count(*) AS n FROM ${quote(t.name)}`).get() as { n: number };
      if (n > 0) occupied.push({ table: t.name, rows: n });
    }
    const names = db
      .prepare(
        "SELECT name FROM sqlite_master WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name",
      )
      .pluck()
      .all() as string[];
    return { occupied, foreign: names.filter((n) => !OWN_TABLE_NAMES.has(n)) };
  } catch (e) {
    throw new StoreOpenError(`cannot open database ${path}: ${(e as Error).message}`);
  } finally {
    db.close();
  }
}

/**
 * Open `path` to be filled: a new file is created mode 0600 and migrated (openSqlite); an
 * existing one is looked at read-only first and refused if it holds rows or another
 * application's tables, so a refused target is left exactly as it was (no WAL switch, no
 * migration).
 */
export async function openSqliteCopyTarget(path: string, tables: readonly CopyTable[]): Promise<CopyTarget> {
  refuseNonDatabase(path);
  const existed = existsSync(path) && statSync(path).size > 0;
  if (existed) refuseUnlessEmpty(path, fileContents(path, tables));
  const createdFile = !existsSync(path);
  const db = openSqlite(path);
  const inserts = new Map<string, Statement>();
  const insertFor = (t: CopyTable): Statement => {
    let stmt = inserts.get(t.name);
    if (!stmt) {
      stmt = db.prepare(
        `INSERT INTO ${quote(t.name)} (${columnList(t)}) VALUES (${t.columns.map(() => '?').join(', ')})`,
      );
      inserts.set(t.name, stmt);
    }
    return stmt;
  };
  const count = (t: CopyTable): number =>
    (db.prepare(`SELECT count(*) AS n FROM ${quote(t.name)}`).get() as { n: number }).n;
  let closed = false;
  const close = (): void => {
    if (closed) return;
    closed = true;
    db.close();
  };
  return {
    async occupied(ts) {
      return ts.map((t) => ({ table: t.name, rows: count(t) })).filter((o) => o.rows > 0);
    },
    async insertBatch(t, rows) {
      const stmt = insertFor(t);
      db.transaction(() => {
        for (const row of rows) stmt.run(...row.map(toSqlite));
      }).immediate();
    },
    async count(t) {
      return count(t);
    },
    // outbox_events.seq is AUTOINCREMENT: SQLite's sequence already follows the largest seq inserted.
    async finish() {},
    async discard() {
      if (createdFile) {
        close();
        for (const f of [path, `${path}-wal`, `${path}-shm`, `${path}-journal`]) rmSync(f, { force: true });
        return 'removed';
      }
      db.transaction(() => {
        for (const t of [...tables].reverse()) db.prepare(`DELETE FROM ${quote(t.name)}`).run();
      }).immediate();
      return 'emptied';
    },
    async close() {
      close();
    },
  };
}
