import { cached } from '../cached.js';
import type { Args } from '../sql/db.js';
import { missingParameter, replaceParameters } from '../sql/params.js';
import type { Sqlite } from './client.js';

/**
 * A statement of `@name` parameters, called with an object holding them. Rows come back as
 * plain objects named by the statement's columns.
 */
export interface Named {
  /** Rows changed. */
  run(args: Args): number;
  get(args: Args): unknown;
  all(args: Args): unknown[];
}

const named = new WeakMap<Sqlite, Map<string, Named>>();

/**
 * The repositories' statements, prepared once per connection and text (hot paths must not
 * re-prepare per call), and faster both ways than the driver's own named parameters and row
 * objects:
 *  - in: the driver binds an object parameter by parameter through V8's API (a lookup to check
 *    the key is there, another to read it, and a new object to find the plain prototype), which
 *    cost a SQLite PAY about a twentieth of its time (BENCHMARKS.md, "Parameters bound by
 *    position on SQLite"). Here each `@name` becomes a `?` once per text, and a function
 *    compiled from the names reads them with plain property reads and passes them by position;
 *  - out: the driver builds each row object one named property at a time through V8's API,
 *    about 8 µs for the 30–46 columns of a transaction, a subscription or a claimed renewal.
 *    Read as arrays and turned into objects by one object literal compiled from the column
 *    names, the same row costs under 4 µs (BENCHMARKS.md, "Rows read as arrays on SQLite").
 */
export function statement(sqlite: Sqlite, sql: string): Named {
  return cached(named, sqlite, sql, () => compile(sqlite, sql));
}

/**
 * What SQLite stores for a parameter's value: booleans as 1/0 (as the boolean columns hold
 * them), a list as JSON (Dialect.inList). A number that is not finite is refused, as PostgreSQL
 * refuses it: SQLite would store NaN as NULL and an infinity as a REAL, or as the largest
 * integer once CAST.
 */
function value(v: unknown, name: string): unknown {
  if (typeof v === 'number') {
    if (Number.isFinite(v)) return v;
    throw new Error(`not a finite number: @${name} = ${v}`);
  }
  if (typeof v === 'boolean') return v ? 1 : 0;
  return Array.isArray(v) ? JSON.stringify(v) : v;
}

/** The text with `?` for each parameter, and the parameters' names in the order they stand. */
export function positional(sql: string): { text: string; names: string[] } {
  const names: string[] = [];
  const text = replaceParameters(sql, (name) => {
    // Read as `a.name` below: a name every object has (constructor, __proto__) would read that.
    if (name in Object.prototype) throw new Error(`a statement parameter may not be named ${name}`);
    names.push(name);
    return '?';
  });
  return { text, names };
}

/** The parameters' values from the caller's object, in order, for a one-off statement. */
export function valuesOf(names: readonly string[], args: Args): unknown[] {
  return names.map((n) => (n in args ? value(args[n], n) : missingParameter(n)));
}

function compile(sqlite: Sqlite, sql: string): Named {
  const { text, names } = positional(sql);
  const stmt = sqlite.prepare(text);
  // A missing parameter is an error, as the driver's named parameters made it (undefined binds NULL).
  const params = names
    .map((n) => {
      const q = JSON.stringify(n);
      return `(${q} in a ? value(a.${n}, ${q}) : missing(${q}))`;
    })
    .join(', ');
  const make = <R>(body: string): ((a: Args) => R) =>
    new Function('s', 'value', 'missing', `return function (a) { ${body} };`)(stmt, value, missingParameter);
  const run = make<number>(`return s.run(${params}).changes;`);
  if (!stmt.reader) return { run, get: notReader(sql), all: notReader(sql) };
  const columns = stmt.columns().map((c) => c.name);
  // A literal's `__proto__: x` would set the prototype instead of a property.
  if (columns.includes('__proto__')) throw new Error('a column may not be named __proto__');
  // Rows as arrays (run is unchanged by it); later columns of one name overwrite earlier ones,
  // as in the driver's own objects.
  stmt.raw(true);
  const row = `{${columns.map((c, i) => `${JSON.stringify(c)}: r[${i}]`).join(', ')}}`;
  return {
    run,
    get: make<unknown>(`const r = s.get(${params}); return r === undefined ? undefined : ${row};`),
    all: make<unknown[]>(
      `const rows = s.all(${params}); const out = new Array(rows.length);
       for (let i = 0; i < rows.length; i++) { const r = rows[i]; out[i] = ${row}; }
       return out;`,
    ),
  };
}

function notReader(sql: string): () => never {
  return () => {
    throw new TypeError(`not a statement that returns rows: ${sql.slice(0, 80)}`);
  };
}
