import type { Args, Db } from '../sql/db.js';
import { SQLITE } from '../sql/db.js';
import type { Sqlite } from './client.js';
import { prepared, reader } from './prepared.js';

const dbs = new WeakMap<Sqlite, Db>();

/** SQLite binds no booleans and no arrays: 1/0, as the boolean columns store them, and a list as JSON (Dialect.inList). */
function bind(args: Args | undefined): Args {
  if (!args) return {};
  // A loop over the keys: this runs for every statement, and Object.values would allocate.
  for (const k in args) {
    const v = args[k];
    if (typeof v === 'boolean' || Array.isArray(v)) {
      const out: Args = {};
      for (const [key, x] of Object.entries(args))
        out[key] = typeof x === 'boolean' ? Number(x) : Array.isArray(x) ? JSON.stringify(x) : x;
      return out;
    }
  }
  return args;
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
