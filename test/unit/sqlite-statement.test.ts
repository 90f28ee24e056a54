import { describe, expect, it } from 'vitest';
import { replaceParameters } from '../../src/store/sql/params.js';
import { Database } from '../../src/store/sqlite/driver.js';
import { statement } from '../../src/store/sqlite/prepared.js';

/** A connection with a few rows of every SQLite storage class. */
function fixture() {
  const sqlite = new Database(':memory:');
  sqlite.exec(`CREATE TABLE t (id TEXT PRIMARY KEY, n INTEGER, x REAL, b BLOB, s TEXT);
    INSERT INTO t VALUES ('a', 1, 1.5, x'00ff', 'one'), ('b', NULL, NULL, NULL, NULL), ('c', 9007199254740991, -0.25, x'', '')`);
  return sqlite;
}

describe('rows read as arrays on SQLite (sqlite/prepared.ts statement)', () => {
  it("answers the objects the driver's own rows are, for every storage class and null", () => {
    const sqlite = fixture();
    const sql = 'SELECT id, n AS "count", x, b, s AS "text" FROM t ORDER BY id';
    expect(statement(sqlite, sql).all({})).toEqual(sqlite.prepare(sql).all());
    for (const id of ['a', 'b', 'c']) {
      const one = 'SELECT id, n, x, b, s FROM t WHERE id = @id';
      expect(statement(sqlite, one).get({ id })).toEqual(sqlite.prepare(one).get({ id }));
    }
  });

  it('answers undefined for no row and an empty list for no rows', () => {
    const sqlite = fixture();
    expect(statement(sqlite, 'SELECT id FROM t WHERE id = @id').get({ id: 'none' })).toBeUndefined();
    expect(statement(sqlite, 'SELECT id FROM t WHERE id > @id').all({ id: 'z' })).toEqual([]);
    expect(statement(sqlite, 'SELECT id FROM t WHERE id = @id').get({ id: 'b' })).toEqual({ id: 'b' });
  });

  it('keeps the last of two columns of one name, as the driver does', () => {
    const sqlite = fixture();
    const sql = "SELECT id AS v, s AS v FROM t WHERE id = 'a'";
    expect(statement(sqlite, sql).get({})).toEqual(sqlite.prepare(sql).get());
    expect(statement(sqlite, sql).get({})).toEqual({ v: 'one' });
  });

  it('names a column with any characters without running them', () => {
    const sqlite = fixture();
    const sql = `SELECT id AS "a""}; throw 1; ({", n AS "k\\u2028" FROM t WHERE id = 'a'`;
    expect(statement(sqlite, sql).get({})).toEqual(sqlite.prepare(sql).get());
  });

  it('refuses a column named __proto__, which an object literal would take as the prototype', () => {
    const sqlite = fixture();
    expect(() => statement(sqlite, 'SELECT id AS "__proto__" FROM t')).toThrow(/__proto__/);
  });

  it('keeps one statement per connection and text', () => {
    const sqlite = fixture();
    const sql = 'SELECT id FROM t';
    expect(statement(sqlite, sql)).toBe(statement(sqlite, sql));
    expect(statement(fixture(), sql)).not.toBe(statement(sqlite, sql));
  });
});

describe('parameters bound by position on SQLite (sqlite/prepared.ts statement)', () => {
  it('binds a parameter named twice with its one value in both places', () => {
    const sqlite = fixture();
    const sql = 'SELECT id FROM t WHERE id = @id OR s = @id ORDER BY id';
    expect(statement(sqlite, sql).all({ id: 'one' })).toEqual([{ id: 'a' }]);
    expect(statement(sqlite, sql).all({ id: 'b' })).toEqual([{ id: 'b' }]);
  });

  it('answers the rows a write changed', () => {
    const sqlite = fixture();
    expect(statement(sqlite, 'UPDATE t SET s = @s WHERE n IS NOT NULL').run({ s: 'x' })).toBe(2);
    expect(statement(sqlite, 'DELETE FROM t WHERE id = @id').run({ id: 'none' })).toBe(0);
  });

  it('leaves an @ inside a quoted literal, a quoted name or a comment as text', () => {
    const sqlite = fixture();
    const sql = `SELECT 'a@b' AS "x@y", 'it''s @s' AS q /* @c */ -- @d
      , @s AS s`;
    expect(statement(sqlite, sql).get({ s: 'v' })).toEqual({ 'x@y': 'a@b', q: "it's @s", s: 'v' });
  });

  it('refuses a parameter the object does not hold, and binds one it holds as undefined as NULL', () => {
    const sqlite = fixture();
    const sql = 'SELECT @a AS a';
    expect(() => statement(sqlite, sql).get({})).toThrow('statement parameter @a not given');
    expect(statement(sqlite, sql).get({ a: undefined })).toEqual({ a: null });
  });

  it('binds booleans as 1 and 0 and a list as JSON, and refuses a number that is not finite', () => {
    const sqlite = fixture();
    const sql = 'SELECT @t AS t, @f AS f, @l AS l, @n AS n';
    expect(statement(sqlite, sql).get({ t: true, f: false, l: ['a', 'b'], n: 2 })).toEqual({
      t: 1,
      f: 0,
      l: '["a","b"]',
      n: 2,
    });
    for (const n of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY])
      expect(() => statement(sqlite, sql).get({ t: 1, f: 0, l: '', n })).toThrow(/not a finite number: @n/);
  });

  it('refuses a parameter named like a property every object has', () => {
    const sqlite = fixture();
    for (const name of ['constructor', '__proto__', 'toString'])
      expect(() => statement(sqlite, `SELECT @${name} AS v`)).toThrow(`may not be named ${name}`);
  });

  it('refuses to read rows from a statement that answers none', () => {
    const sqlite = fixture();
    expect(() => statement(sqlite, 'DELETE FROM t WHERE id = @id').get({ id: 'a' })).toThrow(
      /not a statement that returns rows/,
    );
  });
});

describe('parameters in a statement text (sql/params.ts)', () => {
  it('replaces each @name in order, and nothing inside quotes or comments', () => {
    const names: string[] = [];
    const text = replaceParameters(`a = @a AND '@b' <> "@c" AND b = @b_2 -- @d\n/* @e */ AND @a`, (n) => {
      names.push(n);
      return `$${names.length}`;
    });
    expect(text).toBe(`a = $1 AND '@b' <> "@c" AND b = $2 -- @d\n/* @e */ AND $3`);
    expect(names).toEqual(['a', 'b_2', 'a']);
  });
});
