import {
  bigint,
  boolean,
  index,
  integer,
  type PgColumnBuilderBase,
  type PgTable,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import * as t from '../tables/index.js';
import { tableBuilder } from './build.js';

/**
 * The PostgreSQL dialect of tables/: drizzle-kit's input for drizzle/postgres
 * (`npm run db:generate:pg`). Built, never written by hand: a table or column is added in
 * tables/ only. Money and instants are int8, read as JS numbers (the pool's type parser).
 */
const build = tableBuilder<PgTable>({
  hotParentKeys: false,
  column(name, c) {
    if (c.kind === 'serial') return bigint(name, { mode: 'number' }).primaryKey().generatedByDefaultAsIdentity();
    if (c.kind === 'text') return text(name, c.values ? { enum: c.values as [string, ...string[]] } : {});
    if (c.kind === 'boolean') return boolean(name);
    if (c.kind === 'integer') return integer(name);
    return c.kind === 'instants' ? bigint(name, { mode: 'number' }).array() : bigint(name, { mode: 'number' });
  },
  table: (name, columns, extra) => pgTable(name, columns as Record<string, PgColumnBuilderBase>, extra as never),
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
export const rateLimitWindows = build(t.rateLimitWindows);
