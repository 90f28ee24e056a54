import { type SQL, sql } from 'drizzle-orm';
import type { ColumnSpec, TableSpec } from '../tables/define.js';
import { sqlName } from '../tables/define.js';

/**
 * Building drizzle's tables from tables/ in either dialect: everything but the dialect's own
 * column types and table, index and key functions (schema/sqlite.ts, schema/postgres.ts).
 */

/** The chainable part of a drizzle column builder, the same in both dialects. */
interface Chain {
  primaryKey(): Chain;
  notNull(): Chain;
  unique(): Chain;
  default(value: never): Chain;
  references(ref: () => unknown, actions: { onDelete?: 'set null' }): Chain;
}

interface IndexOn {
  on(...columns: never[]): { where(condition: SQL): unknown };
}

export interface SchemaDialect<T extends object> {
  /** Whether foreign keys marked `hotParent()` are declared (SQLite) or not (PostgreSQL). */
  readonly hotParentKeys: boolean;
  /** The column's type without modifiers (`serial`: complete, key and numbering included). */
  column(name: string, c: ColumnSpec): unknown;
  table(name: string, columns: Record<string, unknown>, extra: (self: Record<string, unknown>) => unknown[]): T;
  index(name: string): IndexOn;
  uniqueIndex(name: string): IndexOn;
  primaryKey(columns: unknown[]): unknown;
}

function columnOf(built: ReadonlyMap<string, object>, table: string, column: string): unknown {
  const t = built.get(table) as Record<string, unknown> | undefined;
  const key = Object.keys(t ?? {}).find((k) => (t?.[k] as { name?: unknown } | undefined)?.name === column);
  if (!t || key === undefined) throw new Error(`foreign key to ${table}.${column}: no such table or column`);
  return t[key];
}

/** A drizzle table's columns for an index or key, by their keys. */
function pick(self: Record<string, unknown>, keys: readonly string[]): never[] {
  return keys.map((k) => {
    const c = self[k];
    if (c === undefined) throw new Error(`index on unknown column ${k}`);
    return c as never;
  });
}

/** A builder of `d`'s tables; foreign keys resolve among the tables it built. */
export function tableBuilder<T extends object>(d: SchemaDialect<T>): (spec: TableSpec) => T {
  const built = new Map<string, T>();
  const column = (name: string, c: ColumnSpec): unknown => {
    if (c.kind === 'serial') return d.column(name, c);
    let b = d.column(name, c) as Chain;
    if (c.primaryKey) b = b.primaryKey();
    if (c.notNull && !c.primaryKey) b = b.notNull();
    if (c.unique) b = b.unique();
    if (c.default !== undefined) b = b.default(c.default as never);
    const ref = c.references;
    if (ref && (ref.onPostgres || d.hotParentKeys))
      b = b.references(() => columnOf(built, ref.table, ref.column), ref.onDelete ? { onDelete: ref.onDelete } : {});
    return b;
  };
  return (spec) => {
    const columns: Record<string, unknown> = {};
    for (const [key, c] of Object.entries(spec.columns)) columns[key] = column(sqlName(key), c.spec);
    const table = d.table(spec.name, columns, (self) => {
      const extra = spec.indexes.map((i) => {
        const b = (i.unique ? d.uniqueIndex(i.name) : d.index(i.name)).on(...pick(self, i.on));
        return i.where ? b.where(sql.raw(i.where)) : b;
      });
      return spec.primaryKey ? [...extra, d.primaryKey(pick(self, spec.primaryKey))] : extra;
    });
    built.set(spec.name, table);
    return table;
  };
}
