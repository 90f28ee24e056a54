import { afterEach, describe, expect, it } from 'vitest';
import { testApp, type TestApp } from '../helpers/ctx.js';

let app: TestApp;
afterEach(() => app?.close());

function setup(): TestApp {
  app = testApp();
  app.ctx.sqlite.exec('CREATE TABLE w (id INTEGER PRIMARY KEY, v TEXT UNIQUE)');
  return app;
}

const count = () => (app.ctx.sqlite.prepare('SELECT count(*) AS n FROM w').get() as { n: number }).n;

describe('group-committed writer', () => {
  it('resolves each call with its own result after the commit', async () => {
    const { ctx } = setup();
    const ins = ctx.sqlite.prepare('INSERT INTO w (v) VALUES (?)');
    const results = await Promise.all([1, 2, 3].map((i) => ctx.writer.transaction(() => Number(ins.run(`v${i}`).lastInsertRowid))));
    expect(results).toEqual([1, 2, 3]);
    expect(count()).toBe(3);
    expect(ctx.sqlite.inTransaction).toBe(false);
  });

  it('rolls back only the call that threw', async () => {
    const { ctx } = setup();
    const ins = ctx.sqlite.prepare('INSERT INTO w (v) VALUES (?)');
    const outcomes = await Promise.allSettled([
      ctx.writer.transaction(() => ins.run('a')),
      ctx.writer.transaction(() => {
        ins.run('b');
        throw new Error('refused');
      }),
      ctx.writer.transaction(() => ins.run('c')),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    const values = (ctx.sqlite.prepare('SELECT v FROM w ORDER BY v').all() as { v: string }[]).map((r) => r.v);
    expect(values).toEqual(['a', 'c']);
  });

  it('lets a later call in the same batch see an earlier call’s writes', async () => {
    const { ctx } = setup();
    const ins = ctx.sqlite.prepare('INSERT INTO w (v) VALUES (?)');
    const exists = ctx.sqlite.prepare('SELECT 1 FROM w WHERE v = ?');
    const insertOnce = () => ctx.writer.transaction(() => (exists.get('k') ? 'duplicate' : (ins.run('k'), 'inserted')));
    expect(await Promise.all([insertOnce(), insertOnce(), insertOnce()])).toEqual(['inserted', 'duplicate', 'duplicate']);
  });

  it('keeps nested better-sqlite3 transactions as savepoints', async () => {
    const { ctx } = setup();
    const ins = ctx.sqlite.prepare('INSERT INTO w (v) VALUES (?)');
    await ctx.writer.transaction(() => ctx.sqlite.transaction(() => ins.run('n'))());
    expect(count()).toBe(1);
  });
});
