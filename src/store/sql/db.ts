import { cached } from '../cached.js';

/**
 * The dialect layer: what the repositories in this folder need from an engine to run SQL both
 * engines share. Statements take `@name` parameters (SQLite reads them natively; the PostgreSQL
 * engine turns them into `$n`, postgres/query.ts) and portable SQL: `CAST(@x AS TEXT) IS NULL`
 * for an optional filter, `CAST(sum(…) AS BIGINT)` for sums. What the two really write
 * differently is asked of `dialect`.
 */
export type Args = Record<string, unknown>;

export interface Dialect {
  readonly name: 'sqlite' | 'postgres';
  /**
   * A locking read's suffix: PostgreSQL holds the row against other units of work until this
   * one ends; SQLite reads plainly, its `BEGIN IMMEDIATE` writer already running alone.
   */
  readonly forUpdate: string;
  /** The same, passing over rows another unit of work holds (claims by concurrent runs). */
  readonly skipLocked: string;
  /** The larger of two values (`greatest` / SQLite's two-argument `max`). */
  greatest(a: string, b: string): string;
  /** Text ordered byte by byte, as ids are (PostgreSQL's default collation orders by locale). */
  bytewise(expr: string): string;
  /** An index the statement must read (SQLite's planner may otherwise scan; PostgreSQL's chooses it). */
  indexedBy(name: string): string;
  /** The LIMIT value meaning "all rows". */
  readonly unlimited: number | null;
  /** `expr` is one of the list parameter `param` (an array of text; SQLite binds it as JSON). */
  inList(expr: string, param: string): string;
}

/** One connection or pool, in one of the two dialects. */
export interface Db {
  readonly dialect: Dialect;
  all<R>(sql: string, args?: Args): Promise<R[]>;
  /**
   * `all` for a text built per call (the report's month bounds written into it): run unprepared,
   * since a statement kept per text would be kept for every call.
   */
  allOnce<R>(sql: string, args?: Args): Promise<R[]>;
  get<R>(sql: string, args?: Args): Promise<R | undefined>;
  /** Rows changed: the answer of a conditional write. */
  run(sql: string, args?: Args): Promise<number>;
}

export const SQLITE: Dialect = {
  name: 'sqlite',
  forUpdate: '',
  skipLocked: '',
  greatest: (a, b) => `max(${a}, ${b})`,
  bytewise: (expr) => expr,
  indexedBy: (name) => ` INDEXED BY ${name}`,
  unlimited: -1,
  inList: (expr, param) => `${expr} IN (SELECT value FROM json_each(${param}))`,
};

export const POSTGRES: Dialect = {
  name: 'postgres',
  forUpdate: ' FOR UPDATE',
  skipLocked: ' FOR UPDATE SKIP LOCKED',
  greatest: (a, b) => `greatest(${a}, ${b})`,
  bytewise: (expr) => `${expr} COLLATE "C"`,
  indexedBy: () => '',
  unlimited: null,
  inList: (expr, param) => `${expr} = ANY(CAST(${param} AS text[]))`,
};

/** Statement texts built once per dialect, for statements too frequent to rebuild their text per call. */
export function perDialect<T>(build: (d: Dialect) => T): (d: Dialect) => T {
  const made = new WeakMap<Dialect, Map<string, T>>();
  return (d) => cached(made, d, '', () => build(d));
}

/**
 * A conditional write and the row it touched, without SQLite's RETURNING (which stages its rows
 * in a temporary table: src/store/README.md, "RETURNING on SQLite"). Both statements are called
 * before either is awaited: a SQLite statement runs when it is called (sqlite/db.ts), so no
 * statement of another unit of work written side by side comes between them. Undefined when the
 * write changed nothing.
 */
export async function runThenGet<R>(db: Db, write: string, read: string, args: Args): Promise<R | undefined> {
  const [changed, row] = await Promise.all([db.run(write, args), db.get<R>(read, args)]);
  return changed === 0 ? undefined : row;
}
