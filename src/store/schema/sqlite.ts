import {
  index,
  integer,
  primaryKey,
  type SQLiteColumnBuilderBase,
  type SQLiteTable,
  sqliteTable,
  text,
  uniqueIndex,
} from 'drizzle-orm/sqlite-core';
import * as t from '../tables/index.js';
import { tableBuilder } from './build.js';

/**
 * The SQLite dialect of tables/: drizzle-kit's input for drizzle/ (`npm run db:generate`) and
 * the table list the copy tests compare. Built, never written by hand: a table or column is
 * added in tables/ only. Money and instants are INTEGER (64-bit), booleans 0/1.
 */
const build = tableBuilder<SQLiteTable>({
  hotParentKeys: true,
  column(name, c) {
    if (c.kind === 'instants') throw new Error(`column ${name}: a list of instants exists on PostgreSQL only`);
    if (c.kind === 'serial') return integer(name).primaryKey({ autoIncrement: true });
    if (c.kind === 'text') return text(name, c.values ? { enum: c.values as [string, ...string[]] } : {});
    return c.kind === 'boolean' ? integer(name, { mode: 'boolean' }) : integer(name);
  },
  table: (name, columns, extra) =>
    sqliteTable(name, columns as Record<string, SQLiteColumnBuilderBase>, extra as never),
  index,
  uniqueIndex,
  primaryKey: (columns) => primaryKey({ columns: columns as never }),
});

export const meta = build(t.meta);
export const merchants = build(t.merchants);
export const plans = build(t.plans);
export const coupons = build(t.coupons);
export const cards = build(t.cards);
export const subscriptions = build(t.subscriptions);
export const billingRecords = build(t.billingRecords);
export const transactions = build(t.transactions);
export const refunds = build(t.refunds);
export const invoices = build(t.invoices);
export const creditNotes = build(t.creditNotes);
export const trackingEntries = build(t.trackingEntries);
export const idempotencyKeys = build(t.idempotencyKeys);
export const outboxEvents = build(t.outboxEvents);
export const customerEmails = build(t.customerEmails);
export const sandboxCharges = build(t.sandboxCharges);
export const portalSessions = build(t.portalSessions);
