import type pg from 'pg';
import { describe, expect, it } from 'vitest';
import { type Batchable, Coalescer } from '../../src/store/postgres/coalesce.js';

/**
 * Statements the flows of one PostgreSQL unit of work share (src/store/postgres/coalesce.ts), with
 * the statements recorded instead of sent: which calls go out together, in what order, and what
 * each caller gets back.
 */
function recording() {
  const sent: string[] = [];
  const conn = {
    query: async (cfg: pg.QueryConfig) => {
      sent.push(cfg.text);
      return { rows: [], rowCount: 0 } as unknown as pg.QueryResult;
    },
  };
  /** A kind named `name`: alone it sends `name(a)`, together `name(a,b,…)`, and answers each `name:a`. */
  const kind = (name: string, keyed = false): Batchable<string, string> => ({
    ...(keyed ? { key: (a: string) => a } : {}),
    async one(c, a) {
      await c.query({ text: `${name}(${a})` });
      return `${name}:${a}`;
    },
    async many(c, as) {
      await c.query({ text: `${name}(${as.join(',')})` });
      return as.map((a) => `${name}:${a}`);
    },
  });
  return { sent, coalescer: new Coalescer(conn), kind, conn };
}

describe('statements shared by the flows of one unit of work', () => {
  it('calls of one kind asked in the same turn go out as one statement, each answered its own', async () => {
    const { sent, coalescer, kind } = recording();
    const settle = kind('settle');
    const answers = await Promise.all(['a', 'b', 'c'].map((id) => coalescer.ask(settle, id)));
    expect(sent).toEqual(['settle(a,b,c)']);
    expect(answers).toEqual(['settle:a', 'settle:b', 'settle:c']);
  });

  it('a call alone goes out as the statement it would send alone', async () => {
    const { sent, coalescer, kind } = recording();
    expect(await coalescer.ask(kind('read'), 'x')).toBe('read:x');
    expect(sent).toEqual(['read(x)']);
  });

  it('keeps the order asked: a call of another kind starts a new statement after the last', async () => {
    const { sent, coalescer, kind } = recording();
    const read = kind('read');
    const write = kind('write');
    const asked = [
      coalescer.ask(read, 'a'),
      coalescer.ask(read, 'b'),
      coalescer.ask(write, 'a'),
      coalescer.ask(read, 'c'),
    ];
    await Promise.all(asked);
    expect(sent).toEqual(['read(a,b)', 'write(a)', 'read(c)']);
  });

  it('never puts two calls with one key in one statement: the second follows the first', async () => {
    const { sent, coalescer, kind } = recording();
    const update = kind('update', true);
    await Promise.all([coalescer.ask(update, 'a'), coalescer.ask(update, 'b'), coalescer.ask(update, 'a')]);
    expect(sent).toEqual(['update(a,b)', 'update(a)']);
  });

  it('waits for every flow a result woke before sending: their next calls share one statement', async () => {
    const { sent, coalescer, kind } = recording();
    const first = kind('first');
    const second = kind('second');
    await Promise.all(
      ['a', 'b', 'c'].map(async (id) => {
        await coalescer.ask(first, id);
        // Another await in between, as a service's code has: still the same turn.
        await Promise.resolve();
        return coalescer.ask(second, id);
      }),
    );
    expect(sent).toEqual(['first(a,b,c)', 'second(a,b,c)']);
  });

  it('sends what was asked before a statement the connection sends on its own (flush), in order', async () => {
    const { sent, coalescer, kind, conn } = recording();
    const answered = coalescer.ask(kind('write'), 'a');
    coalescer.flush();
    await conn.query({ text: 'COMMIT' });
    await answered;
    expect(sent).toEqual(['write(a)', 'COMMIT']);
  });

  it('a statement that fails fails every call that shared it, and only those', async () => {
    const { coalescer, kind } = recording();
    const failing: Batchable<string, string> = {
      one: async () => {
        throw new Error('refused');
      },
      many: async () => {
        throw new Error('refused');
      },
    };
    const results = await Promise.allSettled([
      coalescer.ask(failing, 'a'),
      coalescer.ask(failing, 'b'),
      coalescer.ask(kind('other'), 'c'),
    ]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'fulfilled']);
  });
});
