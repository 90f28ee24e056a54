import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openSqlite, type Sqlite } from '../../src/store/sqlite/client.js';
import { createWriter, type Writer } from '../../src/store/sqlite/writer.js';
import { tempDir } from '../helpers/ctx.js';

/** The SQLite engine's group-commit writer on its own, with the connection itself as `tx`. */
let sqlite: Sqlite;
let writer: Writer<Sqlite>;
let cleanup: (() => void) | undefined;
afterEach(() => {
  sqlite?.close();
  cleanup?.();
});

async function setup(): Promise<{ ctx: { writer: Writer<Sqlite> } }> {
  const t = tempDir();
  cleanup = t.cleanup;
  sqlite = openSqlite(join(t.dir, 'w.db'));
  sqlite.exec('CREATE TABLE w (id INTEGER PRIMARY KEY, v TEXT UNIQUE)');
  writer = createWriter(sqlite, sqlite);
  return { ctx: { writer } };
}

const count = () => (sqlite.prepare('SELECT count(*) AS n FROM w').get() as { n: number }).n;

describe('group-committed writer', () => {
  it('resolves each call with its own result after the commit', async () => {
    const { ctx } = await setup();
    const ins = sqlite.prepare('INSERT INTO w (v) VALUES (?)');
    const results = await Promise.all(
      [1, 2, 3].map((i) => ctx.writer.transaction(() => Number(ins.run(`v${i}`).lastInsertRowid))),
    );
    expect(results).toEqual([1, 2, 3]);
    expect(count()).toBe(3);
    expect(sqlite.inTransaction).toBe(false);
  });

  it('rolls back only the call that threw', async () => {
    const { ctx } = await setup();
    const ins = sqlite.prepare('INSERT INTO w (v) VALUES (?)');
    const outcomes = await Promise.allSettled([
      ctx.writer.transaction(() => ins.run('a')),
      ctx.writer.transaction(() => {
        ins.run('b');
        throw new Error('refused');
      }),
      ctx.writer.transaction(() => ins.run('c')),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    const values = (sqlite.prepare('SELECT v FROM w ORDER BY v').all() as { v: string }[]).map((r) => r.v);
    expect(values).toEqual(['a', 'c']);
  });

  it('rejects a call refused before it wrote anything without running the others again', async () => {
    const { ctx } = await setup();
    const ins = sqlite.prepare('INSERT INTO w (v) VALUES (?)');
    const runs: string[] = [];
    const call = (v: string, refuse = false) =>
      ctx.writer.transaction(() => {
        runs.push(v);
        if (refuse) throw new Error('refused');
        return ins.run(v).changes;
      });
    const outcomes = await Promise.allSettled([call('a'), call('b', true), call('c')]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(runs).toEqual(['a', 'b', 'c']);
    expect(count()).toBe(2);
  });

  it('rejects a call whose statement violates a constraint, keeping the rest of the batch', async () => {
    const { ctx } = await setup();
    const ins = sqlite.prepare('INSERT INTO w (v) VALUES (?)');
    const outcomes = await Promise.allSettled(
      ['x', 'x', 'y'].map((v) => ctx.writer.transaction(() => ins.run(v).changes)),
    );
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(String((outcomes[1] as PromiseRejectedResult).reason)).toMatch(/UNIQUE/);
    expect(count()).toBe(2);
  });

  it('after a call fails half-way, commits every other call exactly once', async () => {
    const { ctx } = await setup();
    const ins = sqlite.prepare('INSERT INTO w (v) VALUES (?)');
    const calls = Array.from({ length: 50 }, (_, i) =>
      ctx.writer.transaction(() => {
        ins.run(`v${i}`);
        if (i === 25 || i === 40) {
          ins.run(`half${i}`);
          throw new Error(`failed ${i}`);
        }
        return i;
      }),
    );
    const outcomes = await Promise.allSettled(calls);
    expect(outcomes.filter((o) => o.status === 'rejected')).toHaveLength(2);
    expect(count()).toBe(48);
    expect(sqlite.prepare("SELECT count(*) AS n FROM w WHERE v LIKE 'half%' OR v IN ('v25', 'v40')").get()).toEqual({
      n: 0,
    });
    expect(sqlite.inTransaction).toBe(false);
  });

  it('lets a later call in the same batch see an earlier call’s writes', async () => {
    const { ctx } = await setup();
    const ins = sqlite.prepare('INSERT INTO w (v) VALUES (?)');
    const exists = sqlite.prepare('SELECT 1 FROM w WHERE v = ?');
    const insertOnce = () =>
      ctx.writer.transaction(() => {
        if (exists.get('k')) return 'duplicate';
        ins.run('k');
        return 'inserted';
      });
    expect(await Promise.all([insertOnce(), insertOnce(), insertOnce()])).toEqual([
      'inserted',
      'duplicate',
      'duplicate',
    ]);
  });

  it('keeps nested better-sqlite3 transactions as savepoints', async () => {
    const { ctx } = await setup();
    const ins = sqlite.prepare('INSERT INTO w (v) VALUES (?)');
    await ctx.writer.transaction(() => sqlite.transaction(() => ins.run('n'))());
    expect(count()).toBe(1);
  });
});
