import { sql } from 'drizzle-orm';
import {
  type AnyPgColumn,
  bigint,
  boolean,
  index,
  integer,
  type PgColumnBuilderBase,
  type PgTable,
  type PgTableExtraConfigValue,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import type { ColumnSpec, TableSpec } from '../tables/define.js';
import { sqlName } from '../tables/define.js';
import * as t from '../tables/index.js';
import { columnOf, indexColumns } from './build.js';

/**
 * The PostgreSQL dialect of tables/: drizzle-kit's input for drizzle/postgres
 * (`npm run db:generate:pg`). Built, never written by hand: a table or column is added in
 * tables/ only. Money and instants are int8 read as JS numbers (the pool's type parser).
 */
const built = new Map<string, PgTable>();

function column(name: string, c: ColumnSpec): PgColumnBuilderBase {
  if (c.kind === 'serial') return bigint(name, { mode: 'number' }).primaryKey().generatedByDefaultAsIdentity();
  let b =
    c.kind === 'text'
      ? text(name, c.values ? { enum: c.values as [string, ...string[]] } : {})
      : c.kind === 'boolean'
        ? boolean(name)
        : c.kind === 'integer'
          ? integer(name)
          : c.kind === 'instants'
            ? bigint(name, { mode: 'number' }).array()
            : bigint(name, { mode: 'number' });
  if (c.primaryKey) b = b.primaryKey() as typeof b;
  if (c.notNull && !c.primaryKey) b = b.notNull() as typeof b;
  if (c.unique) b = b.unique() as typeof b;
  if (c.default !== undefined) b = b.default(c.default as never) as typeof b;
  const ref = c.references;
  if (ref)
    b = b.references(() => columnOf<AnyPgColumn>(built, ref.table, ref.column), {
      ...(ref.onDelete ? { onDelete: ref.onDelete } : {}),
    }) as typeof b;
  return b;
}

function build(spec: TableSpec): PgTable {
  const columns: Record<string, PgColumnBuilderBase> = {};
  for (const [key, c] of Object.entries(spec.columns)) columns[key] = column(sqlName(key), c.spec);
  const table = pgTable(spec.name, columns, (self) => {
    const extra: PgTableExtraConfigValue[] = spec.indexes.map((i) => {
      const on = indexColumns(self as Record<string, AnyPgColumn>, i.on);
      const b = (i.unique ? uniqueIndex(i.name) : index(i.name)).on(...on);
      return i.where ? b.where(sql.raw(i.where)) : b;
    });
    if (spec.primaryKey)
      extra.push(primaryKey({ columns: indexColumns(self as Record<string, AnyPgColumn>, spec.primaryKey) }));
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
export const rateLimitWindows = build(t.rateLimitWindows);
