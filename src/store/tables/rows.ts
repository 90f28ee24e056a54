import { cached } from '../cached.js';
import { type RowOf, sqlName, type TableSpec } from './define.js';

/**
 * A table's row mapping, from its one description: the column lists that make each engine's
 * SQL answer rows in the row type's shape (camelCase keys), and the statements every table
 * has. Parameters are `@key`, which both engines read (SQLite natively, PostgreSQL through
 * postgres/query.ts), so the SQL built here is the same text on both.
 */

export type KeyOf<S extends TableSpec> = keyof S['columns'] & string;

/** The SQL name of a column. */
export const col = <S extends TableSpec>(_spec: S, key: KeyOf<S>): string => sqlName(key);

const keysOf = <S extends TableSpec>(spec: S): KeyOf<S>[] => Object.keys(spec.columns) as KeyOf<S>[];

/**
 * The texts of a table's statements, made once per table and `key` (a statement's kind and shape):
 * repositories build their statements from them per call, and the engines key their prepared
 * statements by the text, so one string kept is one string hashed once instead of a new one per call.
 */
const texts = new WeakMap<TableSpec, Map<string, string>>();

export const tableText = (spec: TableSpec, key: string, make: () => string): string => cached(texts, spec, key, make);

/** `alias.column AS "key"` for every column in definition order, or for `only` those. */
export function selectList<S extends TableSpec>(spec: S, alias?: string, only?: readonly KeyOf<S>[]): string {
  const p = alias ? `${alias}.` : '';
  const list = (keys: readonly string[]) =>
    keys.map((k) => (sqlName(k) === k ? `${p}${k}` : `${p}${sqlName(k)} AS "${k}"`)).join(', ');
  return only ? list(only) : tableText(spec, `select ${p}`, () => list(keysOf(spec)));
}

/** selectList of every column but `omit`. */
export function selectExcept<S extends TableSpec>(
  spec: S,
  alias: string | undefined,
  omit: readonly KeyOf<S>[],
): string {
  return selectList(
    spec,
    alias,
    keysOf(spec).filter((k) => !omit.includes(k)),
  );
}

/** `SELECT <every column> FROM table alias`: add the WHERE. */
export function selectFrom(spec: TableSpec, alias?: string): string {
  return tableText(
    spec,
    `from ${alias ?? ''}`,
    () => `SELECT ${selectList(spec, alias)} FROM ${spec.name}${alias ? ` ${alias}` : ''}`,
  );
}

/** `INSERT INTO table (<every column>) VALUES (@key, …)`: a whole row of the row type. */
export function insertRow(spec: TableSpec, omit: readonly string[] = []): string {
  return tableText(spec, `insert ${omit.join(',')}`, () => {
    const keys = keysOf(spec).filter((k) => !omit.includes(k));
    return `INSERT INTO ${spec.name} (${keys.map(sqlName).join(', ')}) VALUES (${keys.map((k) => `@${k}`).join(', ')})`;
  });
}

/**
 * A whole row's column names and `@<prefix>key` parameters, for a statement that writes rows of
 * several tables (a data-modifying CTE chain) and so keeps each one's parameters apart.
 */
export function rowValues(spec: TableSpec, prefix: string): { columns: string; params: string } {
  const keys = keysOf(spec);
  return { columns: keys.map(sqlName).join(', '), params: keys.map((k) => `@${prefix}${k}`).join(', ') };
}

/** Per prefix, each key's prefixed name, made once (the keys are columns and fixed names). */
const prefixedNames = new Map<string, Map<string, string>>();

/**
 * `args` under `@<prefix>key` names (see rowValues). The names are made once per key: building a
 * new string per key per call, and so a new property name V8 must look up, was 3.3% of a
 * PostgreSQL PAY's CPU in `serve` (a PAY's statements carry about a hundred parameters).
 */
export function prefixed(prefix: string, args: object, into: Record<string, unknown> = {}): Record<string, unknown> {
  let names = prefixedNames.get(prefix);
  if (!names) {
    names = new Map();
    prefixedNames.set(prefix, names);
  }
  const values = args as Record<string, unknown>;
  for (const k of Object.keys(values)) {
    let name = names.get(k);
    if (name === undefined) {
      name = prefix + k;
      if (names.size < 1000) names.set(k, name);
    }
    into[name] = values[k];
  }
  return into;
}

/**
 * The keys of a patch that are set (undefined means "leave as is"), sorted, so one patch shape
 * is one statement text (one prepared statement).
 */
export function patchKeys<S extends TableSpec>(spec: S, patch: Partial<RowOf<S>>, except: readonly string[] = []) {
  return (Object.keys(patch) as KeyOf<S>[])
    .filter((k) => k in spec.columns && !except.includes(k) && patch[k] !== undefined)
    .sort();
}

/** `column = @key, …` for an UPDATE's SET (`@<prefix>key` with a prefix). */
export function setList(keys: readonly string[], prefix = ''): string {
  return keys.map((k) => `${sqlName(k)} = @${prefix}${k}`).join(', ');
}
