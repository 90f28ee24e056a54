import { getTableName, is } from 'drizzle-orm';
import { PgTable } from 'drizzle-orm/pg-core';
import { SQLiteTable } from 'drizzle-orm/sqlite-core';
import { describe, expect, it } from 'vitest';
import * as pgSchema from '../../src/store/schema/postgres.js';
import * as sqliteSchema from '../../src/store/schema/sqlite.js';
import { completeRow, table, text } from '../../src/store/tables/define.js';
import { TABLES } from '../../src/store/tables/index.js';
import { insertRow, selectList } from '../../src/store/tables/rows.js';
import { type NewRow, newInvoice, rowOf } from '../../src/store/store.js';

const names = (mod: object, kind: typeof SQLiteTable | typeof PgTable) =>
  (Object.values(mod) as unknown[]).filter((v) => is(v, kind)).map((v) => getTableName(v as SQLiteTable));

describe('each table is described once (src/store/tables)', () => {
  it('both drizzle schemas, and so both migration sets, are built from every described table', () => {
    expect(names(sqliteSchema, SQLiteTable).sort()).toEqual(
      TABLES.filter((t) => !t.postgresOnly)
        .map((t) => t.name)
        .sort(),
    );
    expect(names(pgSchema, PgTable).sort()).toEqual(TABLES.map((t) => t.name).sort());
  });

  it("a row's SQL column names are its keys in snake_case, and SELECT answers in the row's keys", () => {
    const merchants = TABLES.find((t) => t.name === 'merchants');
    expect(merchants).toBeDefined();
    if (!merchants) return;
    expect(selectList(merchants, 'm')).toContain('m.prev_api_key_until AS "prevApiKeyUntil"');
    expect(selectList(merchants, 'm')).toContain('m.id, ');
    expect(insertRow(merchants)).toMatch(
      /^INSERT INTO merchants \(id, name, api_key, .*\) VALUES \(@id, @name, @apiKey, /,
    );
  });

  it('every column of every table is in its SELECT list and its INSERT', () => {
    for (const t of TABLES) {
      const select = selectList(t);
      const insert = insertRow(t);
      for (const key of Object.keys(t.columns)) {
        expect(select, `${t.name}.${key}`).toMatch(new RegExp(`(^|, )[a-z_0-9]+( AS "${key}")?(,|$)`));
        expect(insert, `${t.name}.${key}`).toContain(`@${key}`);
      }
    }
  });
});

describe('a new row names only the columns its writer sets (rowOf)', () => {
  const NOW = 1_800_000_000_000;
  const plan = () =>
    rowOf('plans', {
      id: 'pln_1',
      merchantId: 'mer_1',
      name: 'Gold',
      price: 990,
      currency: 'USD',
      cycleType: 'MONTHLY',
      cycleLength: 1,
      status: 'ACTIVE',
      createdAt: NOW,
    });

  /** A PAY with only the columns a transaction cannot do without, and `more`. */
  const payment = (more: Partial<NewRow<'transactions'>> = {}) =>
    rowOf('transactions', {
      id: 'txn_1',
      merchantId: 'mer_1',
      paymentType: 'PAY',
      status: 100000,
      amount: 1000,
      currency: 'USD',
      createdAt: NOW,
      updatedAt: NOW,
      ...more,
    });

  it('a nullable column left out is null, and a column with a default left out is its default', () => {
    const row = payment();
    expect(row.relationId).toBeNull();
    expect(row.txnTime).toBeNull();
    expect(row.refundedAmount).toBe(0);
    expect(row.checkoutDeclines).toBe(0);
    expect(row.channel).toBe('sandbox');
  });

  it('a value given is kept, a default included, and undefined counts as left out', () => {
    const row = payment({ id: 'txn_2', status: 200000, channel: 'stripe', userId: undefined, relationId: 'order-1' });
    expect(row.channel).toBe('stripe');
    expect(row.userId).toBeNull();
    expect(row.relationId).toBe('order-1');
  });

  it('the row has every column of the table, in the order the table describes them', () => {
    const spec = TABLES.find((t) => t.name === 'plans');
    expect(Object.keys(plan())).toEqual(Object.keys(spec?.columns ?? {}));
  });

  it("an invoice to issue has every column but those its number's write fills", () => {
    const inv = newInvoice({
      id: 'inv_1',
      merchantId: 'mer_1',
      token: 't'.repeat(32),
      transactionId: 'txn_1',
      currency: 'USD',
      total: 1000,
      issuedAt: NOW,
      customer: '{}',
      document: '{}',
    });
    const spec = TABLES.find((t) => t.name === 'invoices');
    const issued = ['number', 'sellerName', 'legalName', 'address', 'taxId', 'supportEmail'];
    expect(Object.keys(inv)).toEqual(Object.keys(spec?.columns ?? {}).filter((k) => !issued.includes(k)));
    expect(inv.subscriptionId).toBeNull();
  });

  it('a column key that is not a plain camelCase name, or that every object has, is refused', () => {
    const odd = table('odd', { id: text().primaryKey(), constructor: text() });
    expect(() => completeRow(odd, { id: 'x' } as never)).toThrow(/constructor cannot be a row key/);
  });
});
