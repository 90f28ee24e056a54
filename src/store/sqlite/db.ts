import type { Args, Db } from '../sql/db.js';
import { SQLITE } from '../sql/db.js';
import type { Sqlite } from './client.js';
import { prepared, reader } from './prepared.js';

const dbs = new WeakMap<Sqlite, Db>();

/**
 * SQLite binds no booleans and no arrays: 1/0, as the boolean columns store them, and a list as
 * JSON (Dialect.inList). A number that is not finite is refused, as PostgreSQL refuses it: SQLite
 * would store NaN as NULL and an infinity as a REAL, or as the largest integer once CAST.
 */
function bind(args: Args | undefined): Args {
  if (!args) return {};
  // A loop over the keys: this runs for every statement, and Object.values would allocate.
  let convert = false;
  for (const k in args) {
    const v = args[k];
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) throw new Error(`not a finite number: @${k} = ${v}`);
    } else if (typeof v === 'boolean' || Array.isArray(v)) convert = true;
  }
  if (!convert) return args;
  const out: Args = {};
  for (const [key, x] of Object.entries(args))
    out[key] = typeof x === 'boolean' ? Number(x) : Array.isArray(x) ? JSON.stringify(x) : x;
  return out;
}

/**
 * A connection as the shared repositories (store/sql/) see it. The statements still run
 * synchronously and answer resolved promises, so a unit of work runs from BEGIN to COMMIT
 * without giving the event loop an I/O turn.
 */
export function sqliteDb(sqlite: Sqlite): Db {
  let db = dbs.get(sqlite);
  if (!db) {
    const settle = <R>(f: () => R): Promise<R> => {
      try {
        return Promise.resolve(f());
      } catch (e) {
        return Promise.reject(e);
      }
    };
    db = {
      dialect: SQLITE,
      all: <R>(sql: string, args?: Args) => settle(() => reader(sqlite, sql).all(bind(args)) as R[]),
      allOnce: <R>(sql: string, args?: Args) => settle(() => sqlite.prepare(sql).all(bind(args)) as R[]),
      get: <R>(sql: string, args?: Args) => settle(() => reader(sqlite, sql).get(bind(args)) as R | undefined),
      run: (sql: string, args?: Args) => settle(() => prepared(sqlite, sql).run(bind(args)).changes),
    };
    dbs.set(sqlite, db);
  }
  return db;
}
