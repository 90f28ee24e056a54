import type { Statement } from './driver.js';
import { cached } from '../cached.js';
import type { Sqlite } from './client.js';

/**
 * Prepared statements cached once per connection (hot paths must not re-prepare per call).
 * Keyed by the SQL text, so a repository just writes `prepared(sqlite, SQL).run(...)`.
 */
const statements = new WeakMap<Sqlite, Map<string, Statement>>();

export function prepared(sqlite: Sqlite, sql: string): Statement {
  return cached(statements, sqlite, sql, () => sqlite.prepare(sql));
}

/** A reading statement whose rows come back as plain objects named by its columns. */
export interface RowReader {
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
}

const readers = new WeakMap<Sqlite, Map<string, RowReader>>();

/**
 * `prepared` for a statement that answers rows: the same objects better-sqlite3 would build,
 * built faster. The driver builds each row object through V8's API one named property at a
 * time, which costs about 8 µs for the 30–46 columns of a transaction, a subscription or a
 * claimed renewal, the reads of every PAY and renewal. Read as arrays and turned into objects
 * by one object literal compiled from the statement's column names, the same row costs under
 * 4 µs (BENCHMARKS.md, "Rows read as arrays on SQLite").
 */
export function reader(sqlite: Sqlite, sql: string): RowReader {
  return cached(readers, sqlite, sql, () => compileReader(sqlite.prepare(sql)));
}

function compileReader(stmt: Statement): RowReader {
  const names = stmt.columns().map((c) => c.name);
  // A literal's `__proto__: x` would set the prototype instead of a property.
  if (names.includes('__proto__')) throw new Error('a column may not be named __proto__');
  // Later columns of one name overwrite earlier ones, as in the driver's own objects.
  const toObject = new Function(
    'r',
    `return {${names.map((n, i) => `${JSON.stringify(n)}: r[${i}]`).join(', ')}};`,
  ) as (r: unknown[]) => unknown;
  stmt.raw(true);
  return {
    get: (...params) => {
      const r = stmt.get(...params) as unknown[] | undefined;
      return r === undefined ? undefined : toObject(r);
    },
    all: (...params) => (stmt.all(...params) as unknown[][]).map(toObject),
  };
}
