import type { Sqlite } from './client.js';

/**
 * Group commit. Every write transaction of a request goes through `writer.transaction(fn)`:
 * calls made while the event loop is busy are queued and, on the next turn, run one after
 * another inside ONE `BEGIN IMMEDIATE … COMMIT`, each in its own savepoint. So N concurrent
 * requests pay one fsync instead of N, and still:
 *  - each call is atomic (a throw rolls back only its savepoint and rejects only its promise);
 *  - a promise resolves only after COMMIT returned, so "success" still means "on disk"
 *    (synchronous=FULL, SPEC §1);
 *  - calls run strictly in order on one connection, so read-then-write checks inside `fn`
 *    (idempotency, refund limits, maxSubscriptions) see every earlier call's writes, and the
 *    IMMEDIATE lock keeps other processes out for the whole batch.
 * `fn` must be synchronous and must not await (better-sqlite3 transactions are synchronous).
 * Nested `sqlite.transaction(...)` calls inside `fn` become savepoints automatically.
 */
export interface Writer {
  transaction<T>(fn: () => T): Promise<T>;
}

interface Pending {
  fn: () => unknown;
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
}

/** Upper bound of calls in one commit, so one batch cannot hold the write lock for long. */
const MAX_BATCH = 256;

export function createWriter(sqlite: Sqlite): Writer {
  // Prepared once: these run several times per request, and exec() would re-parse them each time.
  const begin = sqlite.prepare('BEGIN IMMEDIATE');
  const savepoint = sqlite.prepare('SAVEPOINT paygate_write');
  const release = sqlite.prepare('RELEASE paygate_write');
  const rollbackTo = sqlite.prepare('ROLLBACK TO paygate_write');
  const commit = sqlite.prepare('COMMIT');
  const rollback = sqlite.prepare('ROLLBACK');
  let queue: Pending[] = [];
  let scheduled = false;

  const flush = (): void => {
    scheduled = false;
    const batch = queue.splice(0, MAX_BATCH);
    if (queue.length > 0) schedule();
    if (sqlite.inTransaction) {
      // Called from inside someone's open transaction (a synchronous caller): run in place.
      for (const item of batch) runOne(item, true);
      return;
    }
    try {
      begin.run();
    } catch (e) {
      for (const item of batch) item.reject(e);
      return;
    }
    const settled: (() => void)[] = [];
    for (const item of batch) {
      savepoint.run();
      try {
        const value = item.fn();
        release.run();
        settled.push(() => item.resolve(value));
      } catch (e) {
        rollbackTo.run();
        release.run();
        settled.push(() => item.reject(e));
      }
    }
    try {
      commit.run();
    } catch (e) {
      if (sqlite.inTransaction) rollback.run();
      for (const item of batch) item.reject(e);
      return;
    }
    for (const settle of settled) settle();
  };

  const runOne = (item: Pending, nested: boolean): void => {
    try {
      item.resolve(nested ? sqlite.transaction(item.fn)() : item.fn());
    } catch (e) {
      item.reject(e);
    }
  };

  const schedule = (): void => {
    if (!scheduled) {
      scheduled = true;
      setImmediate(flush);
    }
  };

  return {
    transaction<T>(fn: () => T): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        queue.push({ fn, resolve: resolve as (v: unknown) => void, reject });
        schedule();
      });
    },
  };
}
