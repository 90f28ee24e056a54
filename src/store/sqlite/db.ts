import type { Args, Db } from '../sql/db.js';
import { SQLITE } from '../sql/db.js';
import type { Sqlite } from './client.js';
import { positional, statement, valuesOf } from './prepared.js';

const dbs = new WeakMap<Sqlite, Db>();
const NONE: Args = Object.freeze({});

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
      all: <R>(sql: string, args?: Args) => settle(() => statement(sqlite, sql).all(args ?? NONE) as R[]),
      allOnce: <R>(sql: string, args?: Args) =>
        settle(() => {
          const { text, names } = positional(sql);
          return sqlite.prepare(text).all(valuesOf(names, args ?? NONE)) as R[];
        }),
      get: <R>(sql: string, args?: Args) => settle(() => statement(sqlite, sql).get(args ?? NONE) as R | undefined),
      run: (sql: string, args?: Args) => settle(() => statement(sqlite, sql).run(args ?? NONE)),
    };
    dbs.set(sqlite, db);
  }
  return db;
}
