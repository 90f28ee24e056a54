import { createHash } from 'node:crypto';
import type pg from 'pg';
import { type Db, POSTGRES } from '../sql/db.js';
import { missingParameter, replaceParameters } from '../sql/params.js';

/** Anything that runs one statement: the pool (autocommit) or a unit of work's connection. */
export interface Conn {
  query(cfg: pg.QueryConfig): Promise<pg.QueryResult>;
}

interface Compiled {
  name: string;
  text: string;
  params: string[];
}

const compiled = new Map<string, Compiled>();

/**
 * The repositories write `@name` parameters (as the SQLite engine does); they become `$n` once per
 * text, and every statement runs as a named prepared statement, parsed once per connection. The
 * name is a hash of the text, so two texts never share one.
 */
function compile(sql: string): Compiled {
  let c = compiled.get(sql);
  if (!c) {
    const params: string[] = [];
    const text = replaceParameters(sql, (p) => {
      let i = params.indexOf(p);
      if (i < 0) i = params.push(p) - 1;
      return `$${i + 1}`;
    });
    c = { name: `pg_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`, text, params };
    compiled.set(sql, c);
  }
  return c;
}

function config(sql: string, args: Record<string, unknown>): pg.QueryConfig {
  const c = compile(sql);
  return {
    name: c.name,
    text: c.text,
    values: c.params.map((p) => {
      if (!(p in args)) missingParameter(p);
      const v = args[p];
      return v === undefined ? null : v;
    }),
  };
}

export async function all<R>(db: Conn, sql: string, args: Record<string, unknown> = {}): Promise<R[]> {
  return (await db.query(config(sql, args))).rows as R[];
}

export async function get<R>(db: Conn, sql: string, args: Record<string, unknown> = {}): Promise<R | undefined> {
  return (await db.query(config(sql, args))).rows[0] as R | undefined;
}

/** A statement run unnamed: PostgreSQL keeps no prepared statement of it on the connection. */
export async function allOnce<R>(db: Conn, sql: string, args: Record<string, unknown> = {}): Promise<R[]> {
  const { text, values } = config(sql, args);
  return (await db.query({ text, values })).rows as R[];
}

/** Rows changed: the answer of a conditional write. */
export async function run(db: Conn, sql: string, args: Record<string, unknown> = {}): Promise<number> {
  return (await db.query(config(sql, args))).rowCount ?? 0;
}

/** A pool or a unit of work's connection as the shared repositories (store/sql/) see it. */
export function pgDb(conn: Conn): Db {
  return {
    dialect: POSTGRES,
    all: (sql, args) => all(conn, sql, args),
    allOnce: (sql, args) => allOnce(conn, sql, args),
    get: (sql, args) => get(conn, sql, args),
    run: (sql, args) => run(conn, sql, args),
  };
}
