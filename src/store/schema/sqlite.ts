import { sql } from 'drizzle-orm';
import {
  type AnySQLiteColumn,
  index,
  integer,
  primaryKey,
  type SQLiteColumnBuilderBase,
  type SQLiteTable,
  type SQLiteTableExtraConfigValue,
  sqliteTable,
  text,
  uniqueIndex,
} from 'drizzle-orm/sqlite-core';
import type { ColumnSpec, TableSpec } from '../tables/define.js';
import { sqlName } from '../tables/define.js';
import * as t from '../tables/index.js';
import { columnOf, indexColumns } from './build.js';

/**
 * The SQLite dialect of tables/: drizzle-kit's input for drizzle/ (`npm run db:generate`) and
 * the table list the copy tests compare. Built, never written by hand: a table or column is
 * added in tables/ only.
 */
const built = new Map<string, SQLiteTable>();

function column(name: string, c: ColumnSpec): SQLiteColumnBuilderBase {
  if (c.kind === 'instants') throw new Error(`column ${name}: a list of instants exists on PostgreSQL only`);
  if (c.kind === 'serial') return integer(name).primaryKey({ autoIncrement: true });
  let b =
    c.kind === 'text'
      ? text(name, c.values ? { enum: c.values as [string, ...string[]] } : {})
      : c.kind === 'boolean'
        ? integer(name, { mode: 'boolean' })
        : integer(name);
  if (c.primaryKey) b = b.primaryKey() as typeof b;
  if (c.notNull && !c.primaryKey) b = b.notNull() as typeof b;
  if (c.unique) b = b.unique() as typeof b;
  if (c.default !== undefined) b = b.default(c.default as never) as typeof b;
  const ref = c.references;
  if (ref)
    b = b.references(() => columnOf<AnySQLiteColumn>(built, ref.table, ref.column), {
      ...(ref.onDelete ? { onDelete: ref.onDelete } : {}),
    }) as typeof b;
  return b;
}

function build(spec: TableSpec): SQLiteTable {
  const columns: Record<string, SQLiteColumnBuilderBase> = {};
  for (const [key, c] of Object.entries(spec.columns)) columns[key] = column(sqlName(key), c.spec);
  const table = sqliteTable(spec.name, columns, (self) => {
    const extra: SQLiteTableExtraConfigValue[] = spec.indexes.map((i) => {
      const on = indexColumns(self as Record<string, AnySQLiteColumn>, i.on);
      const b = (i.unique ? uniqueIndex(i.name) : index(i.name)).on(...on);
      return i.where ? b.where(sql.raw(i.where)) : b;
    });
    if (spec.primaryKey)
      extra.push(primaryKey({ columns: indexColumns(self as Record<string, AnySQLiteColumn>, spec.primaryKey) }));
    return extra;
  });
  built.set(spec.name, table);
  return table;
}

export const meta = build(t.meta);
export const merchants = build(t.merchants);
export const plans = build(t.plans);
export const coupons = build(t.coupons);
export const cards = build(t.cards);
export const subscriptions = build(t.subscriptions);
export const billingRecords = build(t.billingRecords);
export const transactions = build(t.transactions);
export const refunds = build(t.refunds);
export const trackingEntries = build(t.trackingEntries);
export const idempotencyKeys = build(t.idempotencyKeys);
export const outboxEvents = build(t.outboxEvents);
export const sandboxCharges = build(t.sandboxCharges);
