import { describe, expect, it } from 'vitest';
import { Database } from '../../src/store/sqlite/driver.js';
import { reader } from '../../src/store/sqlite/prepared.js';

/** A connection with a few rows of every SQLite storage class. */
function fixture() {
  const sqlite = new Database(':memory:');
  sqlite.exec(`CREATE TABLE t (id TEXT PRIMARY KEY, n INTEGER, x REAL, b BLOB, s TEXT);
    INSERT INTO t VALUES ('a', 1, 1.5, x'00ff', 'one'), ('b', NULL, NULL, NULL, NULL), ('c', 9007199254740991, -0.25, x'', '')`);
  return sqlite;
}

describe('rows read as arrays on SQLite (sqlite/prepared.ts reader)', () => {
  it("answers the objects the driver's own rows are, for every storage class and null", () => {
    const sqlite = fixture();
    const sql = 'SELECT id, n AS "count", x, b, s AS "text" FROM t ORDER BY id';
    expect(reader(sqlite, sql).all()).toEqual(sqlite.prepare(sql).all());
    for (const id of ['a', 'b', 'c']) {
      const one = 'SELECT id, n, x, b, s FROM t WHERE id = ?';
      expect(reader(sqlite, one).get(id)).toEqual(sqlite.prepare(one).get(id));
    }
  });

  it('answers undefined for no row, an empty list for no rows, and takes named parameters', () => {
    const sqlite = fixture();
    expect(reader(sqlite, 'SELECT id FROM t WHERE id = @id').get({ id: 'none' })).toBeUndefined();
    expect(reader(sqlite, 'SELECT id FROM t WHERE id > @id').all({ id: 'z' })).toEqual([]);
    expect(reader(sqlite, 'SELECT id FROM t WHERE id = @id').get({ id: 'b' })).toEqual({ id: 'b' });
  });

  it('keeps the last of two columns of one name, as the driver does', () => {
    const sqlite = fixture();
    const sql = "SELECT id AS v, s AS v FROM t WHERE id = 'a'";
    expect(reader(sqlite, sql).get()).toEqual(sqlite.prepare(sql).get());
    expect(reader(sqlite, sql).get()).toEqual({ v: 'one' });
  });

  it('names a column with any characters without running them', () => {
    const sqlite = fixture();
    const sql = `SELECT id AS "a""}; throw 1; ({", n AS "k\\u2028" FROM t WHERE id = 'a'`;
    expect(reader(sqlite, sql).get()).toEqual(sqlite.prepare(sql).get());
  });

  it('refuses a column named __proto__, which an object literal would take as the prototype', () => {
    const sqlite = fixture();
    expect(() => reader(sqlite, 'SELECT id AS "__proto__" FROM t')).toThrow(/__proto__/);
  });

  it('keeps one statement per connection and text', () => {
    const sqlite = fixture();
    const sql = 'SELECT id FROM t';
    expect(reader(sqlite, sql)).toBe(reader(sqlite, sql));
    expect(reader(fixture(), sql)).not.toBe(reader(sqlite, sql));
  });
});
