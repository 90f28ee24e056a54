import { afterEach, describe, expect, it } from 'vitest';
import type { Args, Db } from '../../src/store/sql/db.js';
import { getRefundByChannelRef } from '../../src/store/sql/refunds.js';
import { getByChannelRef } from '../../src/store/sql/transactions.js';
import { PgStore } from '../../src/store/postgres/store.js';
import { pgDb } from '../../src/store/postgres/query.js';
import { sqliteDb } from '../../src/store/sqlite/db.js';
import { SqliteStore } from '../../src/store/sqlite/index.js';
import { type TestApp, testApp } from '../helpers/ctx.js';

/**
 * A Stripe webhook names a PaymentIntent or a Refund; paygate finds its row by an index, so an
 * event costs the same however many charges and refunds the merchant has (a scan of them would
 * make each event slower than the last). Checked on the plans of the statements the store sends.
 */
let app: TestApp;
afterEach(async () => app?.close());

/** The plan of each statement `read` sends, instead of its rows. */
async function plansOf(db: Db, read: (db: Db) => Promise<unknown>): Promise<string[]> {
  const plans: string[] = [];
  const explain = async (sql: string, args?: Args): Promise<undefined> => {
    const rows = await db.all<Record<string, string>>(
      `${db.dialect.name === 'sqlite' ? 'EXPLAIN QUERY PLAN' : 'EXPLAIN'} ${sql}`,
      args,
    );
    plans.push(rows.map((r) => r.detail ?? r['QUERY PLAN']).join('\n'));
    return undefined;
  };
  await read({ ...db, get: explain, all: async (sql, args) => (await explain(sql, args)) ?? [] });
  return plans;
}

/** The store's connection as a `Db`; on PostgreSQL one client that plans as if the tables were large. */
async function withDb(fn: (db: Db) => Promise<void>): Promise<void> {
  const store = app.ctx.store;
  if (store instanceof SqliteStore) return fn(sqliteDb(store.connection));
  if (!(store instanceof PgStore)) throw new Error('unknown engine');
  const client = await store.handle.pool.connect();
  try {
    // Empty tables make a scan the cheapest plan; with scans priced out, only an index that
    // serves the statement is chosen.
    await client.query('SET enable_seqscan = off');
    await fn(pgDb(client));
  } finally {
    await client.query('RESET enable_seqscan');
    client.release();
  }
}

describe("a Stripe webhook's lookups", () => {
  it('finds the PaymentIntent’s transaction by an index', async () => {
    app = await testApp();
    await withDb(async (db) => {
      const [plan] = await plansOf(db, (d) => getByChannelRef(d, 'mer_1', 'pi_1'));
      expect(plan).toMatch(/transactions_stripe_ref/);
    });
  });

  it('finds the Refund by an index', async () => {
    app = await testApp();
    await withDb(async (db) => {
      const [plan] = await plansOf(db, (d) => getRefundByChannelRef(d, 'mer_1', 're_1'));
      expect(plan).toMatch(/refunds_channel_ref/);
    });
  });
});
