/**
 * The one description of a table, with no engine in it: schema/sqlite.ts and schema/postgres.ts
 * turn each into drizzle's table of that dialect (so drizzle-kit generates both migration sets
 * from it), and tables/rows.ts turns it into the column lists and row shapes the engines' SQL
 * uses. This module imports nothing, so the row types cost a process no library.
 *
 * A column's SQL name is its key in snake_case (`cardLast4` → `card_last4`).
 */

/**
 * What a column holds, and so its type on each engine:
 * - text: text on both;
 * - integer: a count or a small number (integer on both);
 * - money: minor units, and instant: epoch milliseconds — both can exceed int4, so int8 on
 *   PostgreSQL, read as JS numbers (every value paygate writes is far below 2^53);
 * - boolean: boolean on PostgreSQL, 0/1 on SQLite (tables/rows.ts converts);
 * - serial: an insertion-order key the database numbers (AUTOINCREMENT; an identity BY
 *   DEFAULT on PostgreSQL, so a copy from another database can keep the original numbers);
 * - instants: a list of epoch ms (int8[], PostgreSQL-only tables).
 */
export type ColumnKind = 'text' | 'integer' | 'money' | 'instant' | 'boolean' | 'serial' | 'instants';

export interface ColumnSpec {
  kind: ColumnKind;
  values: readonly string[] | undefined;
  notNull: boolean;
  primaryKey: boolean;
  unique: boolean;
  default: string | number | boolean | undefined;
  references:
    | {
        table: string;
        column: string;
        onDelete: 'set null' | undefined;
        /** Declared as a constraint on PostgreSQL too (see `.hotParent()`). */
        onPostgres: boolean;
      }
    | undefined;
}

/**
 * A column of values `T`; `Nullable` until `.notNull()` or `.primaryKey()`, `Defaulted` once it
 * has a `.default()` (a new row may then leave it out: NewRowOf).
 */
export class Column<T, Nullable extends boolean = true, Defaulted extends boolean = false> {
  declare readonly valueType: T;
  declare readonly nullable: Nullable;
  declare readonly defaulted: Defaulted;
  constructor(readonly spec: ColumnSpec) {}

  notNull(): Column<T, false, Defaulted> {
    return new Column({ ...this.spec, notNull: true });
  }
  primaryKey(): Column<T, false, Defaulted> {
    return new Column({ ...this.spec, notNull: true, primaryKey: true });
  }
  unique(): Column<T, Nullable, Defaulted> {
    return new Column({ ...this.spec, unique: true });
  }
  default(value: T): Column<T, Nullable, true> {
    return new Column({ ...this.spec, default: value as string | number | boolean });
  }
  /** A foreign key to `table`'s `column` (by SQL names). */
  references(table: string, column = 'id', onDelete?: 'set null'): Column<T, Nullable, Defaulted> {
    return new Column({ ...this.spec, references: { table, column, onDelete, onPostgres: true } });
  }
  /**
   * The key refers to a parent that many concurrent writes name at once (the merchant of every
   * payment): on PostgreSQL the constraint is not declared. PostgreSQL checks a foreign key by
   * locking the parent row (FOR KEY SHARE); concurrent inserts naming one merchant each lock its
   * one row, and every lock beside another's is a new MultiXact, which cost each payment two
   * 28 µs checks (BENCHMARKS.md). Such parents are never deleted and their ids come from the
   * parent's own row, so the key holds without the check; SQLite, whose checks take no row lock,
   * keeps the constraint, and so does `db copy`'s table order.
   */
  hotParent(): Column<T, Nullable, Defaulted> {
    const ref = this.spec.references;
    if (!ref) throw new Error('hotParent() follows references()');
    return new Column({ ...this.spec, references: { ...ref, onPostgres: false } });
  }
}

const column = <T>(kind: ColumnKind, values?: readonly string[]): Column<T> =>
  new Column<T>({
    kind,
    values,
    notNull: false,
    primaryKey: false,
    unique: false,
    default: undefined,
    references: undefined,
  });

/** Text; with `values`, only those (the row type is their union). */
export function text(): Column<string>;
export function text<const V extends readonly string[]>(values: V): Column<V[number]>;
export function text(values?: readonly string[]): Column<string> {
  return column<string>('text', values);
}
export const integer = (): Column<number> => column('integer');
export const money = (): Column<number> => column('money');
export const instant = (): Column<number> => column('instant');
export const boolean = (): Column<boolean> => column('boolean');
export const serial = (): Column<number, false> => column<number>('serial').primaryKey();
export const instants = (): Column<number[]> => column('instants');

export type AnyColumn = Column<unknown, boolean, boolean>;
export type Columns = Record<string, AnyColumn>;

export interface IndexSpec<K extends string = string> {
  name: string;
  on: readonly K[];
  unique: boolean;
  /** A partial index's condition, in SQL both engines read alike. */
  where: string | undefined;
}

export const index = <K extends string>(name: string, on: readonly K[], where?: string): IndexSpec<K> => ({
  name,
  on,
  unique: false,
  where,
});
export const uniqueIndex = <K extends string>(name: string, on: readonly K[], where?: string): IndexSpec<K> => ({
  name,
  on,
  unique: true,
  where,
});

export interface TableSpec<C extends Columns = Columns> {
  name: string;
  columns: C;
  /** Checked against the columns' keys by `table()`; kept as plain names so any table is a TableSpec. */
  indexes: readonly IndexSpec[];
  /** A primary key of several columns (a single one is the column's `.primaryKey()`). */
  primaryKey: readonly string[] | undefined;
  /** Only on PostgreSQL: state that several instances share (SQLite's one `serve` keeps it in memory). */
  postgresOnly: boolean;
}

export function table<C extends Columns>(
  name: string,
  columns: C,
  more: {
    indexes?: readonly IndexSpec<keyof C & string>[];
    primaryKey?: readonly (keyof C & string)[];
    postgresOnly?: boolean;
  } = {},
): TableSpec<C> {
  return {
    name,
    columns,
    indexes: more.indexes ?? [],
    primaryKey: more.primaryKey,
    postgresOnly: more.postgresOnly ?? false,
  };
}

/** The row a table's SELECT answers (camelCase keys, nullable columns `| null`). */
export type RowOf<S extends TableSpec> = {
  [K in keyof S['columns']]: S['columns'][K] extends Column<infer T, infer N, boolean>
    ? N extends true
      ? T | null
      : T
    : never;
};

/** Whether a new row may leave the column out: it is nullable or has a default. */
type MayOmit<C> = C extends Column<unknown, infer N, infer D> ? (N extends true ? true : D) : false;

/**
 * A new row as code writes it: the columns that are NOT NULL without a default, and any others
 * it sets. The rest are null or their default (completeRow), so a new nullable or defaulted
 * column changes no code that writes rows.
 */
export type NewRowOf<S extends TableSpec> = {
  [K in keyof S['columns'] as MayOmit<S['columns'][K]> extends true ? never : K]: RowOf<S>[K];
} & {
  [K in keyof S['columns'] as MayOmit<S['columns'][K]> extends true ? K : never]?: RowOf<S>[K];
};

/**
 * The whole row, in definition order: each column `r` leaves out (or undefined) null or its
 * default, but the columns in `leave`, which another write fills (an invoice's number).
 */
export function completeRow<S extends TableSpec, L extends keyof S['columns'] & string = never>(
  spec: S,
  r: Omit<NewRowOf<S>, L>,
  leave: readonly L[] = [],
): Omit<RowOf<S>, L> {
  return completerOf(spec, leave)(r) as Omit<RowOf<S>, L>;
}

type Completer = (given: object) => object;
const completers = new WeakMap<TableSpec, Map<string, Completer>>();

/**
 * One object literal per table (and `leave`), compiled from its column keys, as the SQLite row
 * reader is (sqlite/prepared.ts): a loop storing 46 keys one by one took 1.4 µs per row, on every
 * PAY and renewal; the literal makes each row in one shape.
 */
function completerOf(spec: TableSpec, leave: readonly string[]): Completer {
  let perTable = completers.get(spec);
  if (!perTable) {
    perTable = new Map();
    completers.set(spec, perTable);
  }
  const id = leave.length === 0 ? '' : leave.join(',');
  let complete = perTable.get(id);
  if (!complete) {
    const keys = Object.keys(spec.columns).filter((k) => !leave.includes(k));
    // Keys become the literal's property names and member reads: plain identifiers, and none an
    // object has anyway (`g.constructor` is never undefined).
    for (const k of keys)
      if (!/^[a-z][A-Za-z0-9]*$/.test(k) || k in Object.prototype)
        throw new Error(`column key ${k} cannot be a row key`);
    const defaults = keys.map((k) => spec.columns[k]?.spec.default ?? null);
    const body = keys.map((k, i) => `${k}: g.${k} !== undefined ? g.${k} : d[${i}]`).join(', ');
    complete = new Function('d', `return (g) => ({${body}});`)(defaults) as Completer;
    perTable.set(id, complete);
  }
  return complete;
}

const sqlNames = new Map<string, string>();

/** camelCase key → snake_case column; remembered, since statements are built from it per call. */
export function sqlName(key: string): string {
  let name = sqlNames.get(key);
  if (name === undefined) {
    name = key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
    sqlNames.set(key, name);
  }
  return name;
}
