import { getTableName, is } from 'drizzle-orm';
import { PgTable } from 'drizzle-orm/pg-core';
import { SQLiteTable } from 'drizzle-orm/sqlite-core';
import { describe, expect, it } from 'vitest';
import * as pgSchema from '../../src/store/schema/postgres.js';
import * as sqliteSchema from '../../src/store/schema/sqlite.js';
import { TABLES } from '../../src/store/tables/index.js';
import { insertRow, selectList } from '../../src/store/tables/rows.js';

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
