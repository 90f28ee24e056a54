import type { Socket } from 'node:net';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPgStore, type PgStore } from '../../src/store/postgres/client.js';
import { pgAvailable, usePgDatabase } from '../helpers/postgres.js';

/** Counts the writes a pooled connection makes to its socket (each one a system call). */
function countWrites(client: pg.PoolClient): { readonly count: number } {
  const stream = (client as unknown as { connection: { stream: Socket } }).connection.stream;
  const counter = { count: 0 };
  const internals = stream as unknown as Record<'_write' | '_writev', (...a: unknown[]) => unknown>;
  for (const name of ['_write', '_writev'] as const) {
    const original = internals[name];
    internals[name] = function (this: unknown, ...a: unknown[]) {
      counter.count++;
      return original.apply(this, a);
    };
  }
  return counter;
}

describe.skipIf(!pgAvailable())("a PostgreSQL connection's writes", () => {
  const database = usePgDatabase();
  let store: PgStore;
  beforeAll(async () => {
    store = await openPgStore(database.url, { env: {}, poolSize: 1 });
  });
  afterAll(async () => store?.close());

  const select = (client: pg.PoolClient, n: number) =>
    client.query<{ n: number }>({ name: 'writes_probe', text: 'SELECT $1::int AS n', values: [n] });

  it('statements sent in one turn leave in one write to the server, each answered in order', async () => {
    const client = await store.pool.connect();
    try {
      await select(client, 0);
      const writes = countWrites(client);
      const answers = await Promise.all([1, 2, 3, 4, 5].map((n) => select(client, n)));
      expect(answers.map((a) => a.rows[0]?.n)).toEqual([1, 2, 3, 4, 5]);
      expect(writes.count).toBe(1);
    } finally {
      client.release();
    }
  });

  it('a statement sent in a later turn leaves in a write of its own, and is answered', async () => {
    const client = await store.pool.connect();
    try {
      const writes = countWrites(client);
      expect((await select(client, 6)).rows[0]?.n).toBe(6);
      expect((await select(client, 7)).rows[0]?.n).toBe(7);
      expect(writes.count).toBe(2);
    } finally {
      client.release();
    }
  });
});
