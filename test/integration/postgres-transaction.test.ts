import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openPgStore, type PgStore } from '../../src/store/postgres/client.js';
import { PgConnectionLostError, sqlState } from '../../src/store/postgres/errors.js';
import { PgStore as PgEngine } from '../../src/store/postgres/store.js';
import { withTransaction, type PgTx } from '../../src/store/postgres/transaction.js';
import { pgAvailable, usePgDatabase } from '../helpers/postgres.js';
import { rowOf } from '../../src/store/store.js';
import { startCutProxy, type CutProxy } from '../helpers/pg-cut-proxy.js';

describe.skipIf(!pgAvailable())('withTransaction on PostgreSQL', () => {
  const database = usePgDatabase();
  let store: PgStore;
  /** A second pool: the "other instance" that races the unit of work under test. */
  let other: pg.Pool;

  beforeAll(async () => {
    store = await openPgStore(database.url, { env: {} });
    other = new pg.Pool({ connectionString: database.url, max: 4 });
    // An idle client of this pool may be ended by the server (the database dropped after the
    // file): pg-pool re-emits that on the pool, where nothing listening makes it an uncaught error.
    other.on('error', () => {});
    await other.query('CREATE TABLE probe (k text PRIMARY KEY, n int NOT NULL)');
  });
  afterAll(async () => {
    await other?.end();
    await store?.close();
  });
  beforeEach(async () => {
    await other.query('TRUNCATE probe');
  });

  const value = async (k: string): Promise<number | undefined> =>
    (await other.query<{ n: number }>('SELECT n FROM probe WHERE k = $1', [k])).rows[0]?.n;
  const pidOf = async (tx: PgTx): Promise<number> => {
    const [row] = (await tx.client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows;
    if (!row) throw new Error('pg_backend_pid() answered no row');
    return row.pid;
  };
  /** Ends the transaction's server session from outside, as a restart or failover would, and waits until it is gone. */
  const killBackend = async (pid: number): Promise<void> => {
    await other.query('SELECT pg_terminate_backend($1)', [pid]);
    while ((await other.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [pid])).rowCount)
      await new Promise((r) => setTimeout(r, 10));
  };

  it('commits the unit of work and returns its result', async () => {
    const r = await withTransaction(store.pool, async (tx) => {
      await tx.client.query("INSERT INTO probe VALUES ('a', 1), ('b', 2)");
      return 'done';
    });
    expect(r).toBe('done');
    expect([await value('a'), await value('b')]).toEqual([1, 2]);
  });

  it('rolls everything back when the unit of work throws, and surfaces that error', async () => {
    let runs = 0;
    const boom = new Error('refused half-way');
    await expect(
      withTransaction(store.pool, async (tx) => {
        runs++;
        await tx.client.query("INSERT INTO probe VALUES ('a', 1)");
        await tx.client.query("UPDATE probe SET n = 5 WHERE k = 'a'");
        throw boom;
      }),
    ).rejects.toBe(boom);
    expect(runs).toBe(1);
    expect(await value('a')).toBeUndefined();
  });

  /** Check-then-insert, with a competitor inserting the same key in between on the first run. */
  const insertOnce = (runs: { n: number }) => async (tx: PgTx) => {
    runs.n++;
    const found = await tx.client.query('SELECT n FROM probe WHERE k = $1', ['dup']);
    if (found.rowCount) return 'found the winner';
    if (runs.n === 1) await other.query("INSERT INTO probe VALUES ('dup', 7)");
    await tx.client.query("INSERT INTO probe VALUES ('dup', 1)");
    return 'inserted';
  };

  it('surfaces a unique violation unless asked to retry on it', async () => {
    const runs = { n: 0 };
    const e = await withTransaction(store.pool, insertOnce(runs)).catch((x: unknown) => x);
    expect(sqlState(e)).toBe('23505');
    expect(runs.n).toBe(1);
  });

  it('retries the whole unit of work on a unique violation when asked, and the retry sees the winner', async () => {
    const runs = { n: 0 };
    const r = await withTransaction(store.pool, insertOnce(runs), { retryOnUniqueViolation: true });
    expect(r).toBe('found the winner');
    expect(runs.n).toBe(2);
    expect(await value('dup')).toBe(7);
  });

  it('retries on a serialization failure, and no increment is lost', async () => {
    await other.query("INSERT INTO probe VALUES ('c', 0)");
    let runs = 0;
    await withTransaction(
      store.pool,
      async (tx) => {
        runs++;
        const { rows } = await tx.client.query<{ n: number }>("SELECT n FROM probe WHERE k = 'c'");
        // Another instance changes the row after this snapshot was taken (first run only).
        if (runs === 1) await other.query("UPDATE probe SET n = n + 1 WHERE k = 'c'");
        const [row] = rows;
        if (!row) throw new Error("probe row 'c' is missing");
        await tx.client.query("UPDATE probe SET n = $1 WHERE k = 'c'", [row.n + 1]);
      },
      { isolation: 'repeatable read' },
    );
    expect(runs).toBe(2);
    expect(await value('c')).toBe(2);
  });

  it('gives up after its attempts and surfaces the serialization failure', async () => {
    await other.query("INSERT INTO probe VALUES ('c', 0)");
    let runs = 0;
    const e = await withTransaction(
      store.pool,
      async (tx) => {
        runs++;
        await tx.client.query("SELECT n FROM probe WHERE k = 'c'");
        await other.query("UPDATE probe SET n = n + 1 WHERE k = 'c'");
        await tx.client.query("UPDATE probe SET n = 100 WHERE k = 'c'");
      },
      { isolation: 'repeatable read', maxAttempts: 3 },
    ).catch((x: unknown) => x);
    expect(sqlState(e)).toBe('40001');
    expect(runs).toBe(3);
    expect(await value('c')).toBe(3);
  });

  it('retries the loser of a deadlock, and both units of work commit', async () => {
    await other.query("INSERT INTO probe VALUES ('x', 0), ('y', 0)");
    let locked = 0;
    let bothLocked!: () => void;
    const barrier = new Promise<void>((r) => (bothLocked = r));
    let runs = 0;
    const crossing = (first: string, second: string, other: () => Promise<unknown>) => {
      let attempts = 0;
      return async (tx: PgTx): Promise<void> => {
        runs++;
        // The loser's rerun starts once the winner has committed. Otherwise, on a busy machine, it
        // can take its first row again before the winner (woken by the loser's rollback) has
        // taken it, and the two deadlock a second time: a fourth run, one second later.
        if (++attempts > 1) await other();
        await tx.client.query('UPDATE probe SET n = n + 1 WHERE k = $1', [first]);
        if (++locked === 2) bothLocked();
        await barrier;
        await tx.client.query('UPDATE probe SET n = n + 1 WHERE k = $1', [second]);
      };
    };
    const xy: Promise<void> = withTransaction(
      store.pool,
      crossing('x', 'y', () => yx),
    );
    const yx: Promise<void> = withTransaction(
      store.pool,
      crossing('y', 'x', () => xy),
    );
    await Promise.all([xy, yx]);
    expect(runs).toBe(3);
    expect([await value('x'), await value('y')]).toEqual([2, 2]);
  });

  it("fails the unit of work with a deferred write's own error when a later statement is refused for it", async () => {
    const e = await withTransaction(store.pool, async (tx) => {
      await tx.client.query("INSERT INTO probe VALUES ('a', 1)");
      tx.conn.defer(tx.client.query("INSERT INTO probe VALUES ('a', 2)"));
      await tx.conn.query({ text: "SELECT n FROM probe WHERE k = 'a'" });
    }).catch((x: unknown) => x);
    // The read behind it fails too (25P02, transaction aborted); what surfaces is the cause.
    expect(sqlState(e)).toBe('23505');
    expect(await value('a')).toBeUndefined();
  });

  it("rolls back, with the deferred write's error, a unit of work whose last write fails behind its COMMIT", async () => {
    const e = await withTransaction(store.pool, async (tx) => {
      await tx.client.query("INSERT INTO probe VALUES ('b', 1)");
      tx.conn.defer(tx.client.query("INSERT INTO probe VALUES ('b', 2)"));
    }).catch((x: unknown) => x);
    expect(sqlState(e)).toBe('23505');
    expect(await value('b')).toBeUndefined();
  });

  it('retries on a unique violation raised by a deferred write when asked, and the retry sees the winner', async () => {
    let runs = 0;
    const r = await withTransaction(
      store.pool,
      async (tx) => {
        runs++;
        const found = await tx.conn.query({ text: "SELECT n FROM probe WHERE k = 'd'" });
        if (found.rowCount) return 'found the winner';
        if (runs === 1) await other.query("INSERT INTO probe VALUES ('d', 7)");
        tx.conn.defer(tx.client.query("INSERT INTO probe VALUES ('d', 1)"));
        return 'inserted';
      },
      { retryOnUniqueViolation: true },
    );
    expect([r, runs, await value('d')]).toEqual(['found the winner', 2, 7]);
  });

  it('leaves the connection at synchronous_commit=on after a sandbox charge (whose own commit skips the disk wait)', async () => {
    const single = await openPgStore(database.url, { env: {}, poolSize: 1 });
    try {
      const engine = new PgEngine(single);
      const now = Date.now();
      const inserted = await engine.transaction((tx) =>
        tx.insertSandboxCharge(
          rowOf('sandboxCharges', {
            id: 'ch_sync',
            idempotencyKey: 'key_sync',
            kind: 'charge',
            amount: 1000,
            currency: 'USD',
            cardBin: '424242',
            cardLast4: '4242',
            customerPresent: true,
            outcome: 'approved',
            createdAt: now,
            updatedAt: now,
          }),
        ),
      );
      expect(inserted).toBe(true);
      // One connection in this pool: the next unit of work runs on the one the charge used.
      expect((await single.pool.query('SHOW synchronous_commit')).rows).toEqual([{ synchronous_commit: 'on' }]);
    } finally {
      await single.close();
    }
  });

  it('retries a read once when its connection is lost', async () => {
    await other.query("INSERT INTO probe VALUES ('r', 42)");
    let runs = 0;
    const n = await withTransaction(
      store.pool,
      async (tx) => {
        runs++;
        if (runs === 1) await killBackend(await pidOf(tx));
        return (await tx.client.query<{ n: number }>("SELECT n FROM probe WHERE k = 'r'")).rows[0]?.n;
      },
      { readOnly: true },
    );
    expect([n, runs]).toEqual([42, 2]);
  });

  it('retries a read only once', async () => {
    let runs = 0;
    const e = await withTransaction(
      store.pool,
      async (tx) => {
        runs++;
        await killBackend(await pidOf(tx));
        return tx.client.query('SELECT 1');
      },
      { readOnly: true },
    ).catch((x: unknown) => x);
    expect(runs).toBe(2);
    expect(e).toBeInstanceOf(PgConnectionLostError);
    expect((e as PgConnectionLostError).committed).toBe(false);
  });

  it('never re-runs a write whose connection is lost, and nothing of it is saved', async () => {
    let runs = 0;
    const e = await withTransaction(store.pool, async (tx) => {
      runs++;
      await tx.client.query("INSERT INTO probe VALUES ('w', 1)");
      await killBackend(await pidOf(tx));
      await tx.client.query("INSERT INTO probe VALUES ('w2', 1)");
    }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(PgConnectionLostError);
    expect((e as PgConnectionLostError).committed).toBe(false);
    expect(runs).toBe(1);
    expect(await value('w')).toBeUndefined();
    // The pool replaced the dead connection.
    expect((await store.pool.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
  });

  it('reports an unreachable server as a lost connection without running the unit of work', async () => {
    const down = new pg.Pool({
      connectionString: 'postgres://postgres@127.0.0.1:1/none',
      connectionTimeoutMillis: 2000,
    });
    let runs = 0;
    const e = await withTransaction(down, async () => {
      runs++;
    }).catch((x: unknown) => x);
    await down.end();
    expect(e).toBeInstanceOf(PgConnectionLostError);
    expect(runs).toBe(0);
  });

  describe('a connection cut while COMMIT is in flight', () => {
    let proxy: CutProxy;
    let proxied: PgStore;
    beforeAll(async () => {
      proxy = await startCutProxy(database.url);
      proxied = await openPgStore(proxy.url, { env: {}, poolSize: 2 });
    });
    afterAll(async () => {
      await proxied?.close();
      await proxy?.close();
    });

    it('returns the result when the server committed (asked on a new connection)', async () => {
      let runs = 0;
      const r = await withTransaction(proxied.pool, async (tx) => {
        runs++;
        await tx.client.query("INSERT INTO probe VALUES ('cd', 1)");
        proxy.cutNextCommit('deliver');
        return 'saved';
      });
      expect([r, runs, proxy.cuts]).toEqual(['saved', 1, 1]);
      expect(await value('cd')).toBe(1);
    });

    it('reports the loss with nothing written when the COMMIT never arrived', async () => {
      let runs = 0;
      const e = await withTransaction(proxied.pool, async (tx) => {
        runs++;
        await tx.client.query("INSERT INTO probe VALUES ('cx', 1)");
        proxy.cutNextCommit('drop');
      }).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(PgConnectionLostError);
      expect((e as PgConnectionLostError).committed).toBe(false);
      expect([runs, proxy.cuts]).toEqual([1, 2]);
      expect(await value('cx')).toBeUndefined();
    });
  });
});
