import type { Ctx } from '../../src/ctx.js';
import { PgStore } from '../../src/store/postgres/store.js';
import { SqliteStore } from '../../src/store/sqlite/index.js';

/**
 * Engine-neutral row access for tests that inspect or arrange rows directly (the product itself
 * never reaches past the store boundary). SQL is written once with `?` placeholders and portable
 * syntax; on PostgreSQL the placeholders become $1…$n and int8 columns read as numbers, as the
 * engine reads them.
 */
export interface TestRows {
  get<T = Record<string, unknown>>(sql: string, ...args: unknown[]): Promise<T>;
  all<T = Record<string, unknown>>(sql: string, ...args: unknown[]): Promise<T[]>;
  /** Rows changed. */
  run(sql: string, ...args: unknown[]): Promise<number>;
}

function numbered(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

export function rowsOf(ctx: Ctx): TestRows {
  const store = ctx.store;
  if (store instanceof SqliteStore) {
    const db = store.connection;
    return {
      get: async <T>(sql: string, ...args: unknown[]) => db.prepare(sql).get(...args) as T,
      all: async <T>(sql: string, ...args: unknown[]) => db.prepare(sql).all(...args) as T[],
      run: async (sql: string, ...args: unknown[]) => db.prepare(sql).run(...args).changes,
    };
  }
  if (store instanceof PgStore) {
    const pool = store.handle.pool;
    return {
      get: async <T>(sql: string, ...args: unknown[]) => (await pool.query(numbered(sql), args)).rows[0] as T,
      all: async <T>(sql: string, ...args: unknown[]) => (await pool.query(numbered(sql), args)).rows as T[],
      run: async (sql: string, ...args: unknown[]) => (await pool.query(numbered(sql), args)).rowCount ?? 0,
    };
  }
  throw new Error('rowsOf: unknown engine');
}
