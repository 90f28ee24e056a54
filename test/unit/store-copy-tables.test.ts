import { getTableName, is } from 'drizzle-orm';
import { getTableConfig as pgTableConfig, PgTable } from 'drizzle-orm/pg-core';
import { getTableConfig, SQLiteTable } from 'drizzle-orm/sqlite-core';
import { describe, expect, it } from 'vitest';
import { COPY_TABLES } from '../../src/store/copy.js';
import * as pgSchema from '../../src/store/schema/postgres.js';
import * as schema from '../../src/store/schema/sqlite.js';

const sqliteTables = (Object.values(schema) as unknown[]).filter((v): v is SQLiteTable => is(v, SQLiteTable));
const pgTables = (Object.values(pgSchema) as unknown[]).filter((v): v is PgTable => is(v, PgTable));
const copied = COPY_TABLES.map((t) => t.name);

describe('db copy covers the whole schema', () => {
  it('copies every table of the schema, once (a table added to the schema must be added to the copy)', () => {
    expect(sqliteTables.length).toBeGreaterThanOrEqual(12);
    expect([...copied].sort()).toEqual(sqliteTables.map((t) => getTableName(t)).sort());
    expect(new Set(copied).size).toBe(copied.length);
  });

  it('copies a table only after every table its foreign keys point at', () => {
    for (const table of sqliteTables) {
      const name = getTableName(table);
      for (const fk of getTableConfig(table).foreignKeys) {
        const parent = getTableName(fk.reference().foreignTable);
        if (parent === name) continue;
        expect(copied.indexOf(parent), `${parent} before ${name}`).toBeLessThan(copied.indexOf(name));
      }
    }
  });

  it('copies every column of each table, by a primary key, and the PostgreSQL tables have the same columns', () => {
    for (const t of COPY_TABLES) {
      const sqlite = sqliteTables.find((x) => getTableName(x) === t.name);
      expect(t.columns.map((c) => c.name)).toEqual(getTableConfig(sqlite as SQLiteTable).columns.map((c) => c.name));
      expect(t.key.length).toBeGreaterThan(0);
      const pg = pgTables.find((x) => getTableName(x) === t.name);
      expect(pg, `${t.name} exists on PostgreSQL`).toBeDefined();
      expect(
        pgTableConfig(pg as PgTable)
          .columns.map((c) => c.name)
          .sort(),
      ).toEqual(t.columns.map((c) => c.name).sort());
    }
    expect(COPY_TABLES.find((t) => t.name === 'idempotency_keys')?.key).toEqual(['merchant_id', 'scope', 'request_id']);
    expect(COPY_TABLES.find((t) => t.name === 'outbox_events')?.key).toEqual(['seq']);
    expect(
      COPY_TABLES.find((t) => t.name === 'sandbox_charges')?.columns.find((c) => c.name === 'customer_present')?.type,
    ).toBe('boolean');
  });

  it('the only PostgreSQL table not copied is the rate-limit windows (minute-long counters of one engine)', () => {
    expect(pgTables.map((t) => getTableName(t)).filter((n) => !copied.includes(n))).toEqual(['rate_limit_windows']);
  });
});
