import type { Sqlite } from './client.js';

/**
 * Group commit. Every write transaction of a request goes through `writer.transaction(fn)`:
 * calls made while the event loop is busy are queued and, on the next turn, run one after
 * another inside ONE `BEGIN IMMEDIATE … COMMIT`. So N concurrent requests pay one commit
 * instead of N, and still:
 *  - each call is atomic: a call that throws leaves nothing behind and rejects only its promise;
 *  - a promise resolves only after COMMIT returned, so "success" still means "on disk"
 *    (synchronous=FULL, SPEC §1);
 *  - calls run strictly in order on one connection, so read-then-write checks inside `fn`
 *    (idempotency, refund limits, maxSubscriptions) see every earlier call's writes, and the
 *    IMMEDIATE lock keeps other processes out for the whole batch.
 *
 * Calls are not wrapped in savepoints: a savepoint makes SQLite copy every page a call touches
 * into its statement journal, which doubled the cost of a renewal. Instead, a call that throws
 * having written nothing (total_changes() unchanged: the usual refusal — a duplicate, a limit)
 * simply rejects; a call that throws after writing rolls the whole batch back, and the batch is
 * then redone one call per transaction. So:
 *  - `fn` must be synchronous and must not await (better-sqlite3 transactions are synchronous);
 *  - `fn` may run twice (its first run rolled back): it must change nothing outside the
 *    database but what it returns.
 * Nested `sqlite.transaction(...)` calls inside `fn` become savepoints as usual.
 */
export interface Writer {
  transaction<T>(fn: () => T): Promise<T>;
}

interface Pending {
  fn: () => unknown;
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
}

/**
 * Upper bound of calls in one commit, so one batch cannot hold the write lock for long (about
 * 15 ms at this size). Large enough for a renewal batch's results, the next batch's channel
 * writes and a claim together (2 × 256 + 1).
 */
const MAX_BATCH = 640;

export function createWriter(sqlite: Sqlite): Writer {
  // Prepared once: these run for every batch, and exec() would re-parse them each time.
  const begin = sqlite.prepare('BEGIN IMMEDIATE');
  const commit = sqlite.prepare('COMMIT');
  const rollback = sqlite.prepare('ROLLBACK');
  const totalChanges = sqlite.prepare('SELECT total_changes()').pluck();
  let queue: Pending[] = [];
  let scheduled = false;

  const flush = (): void => {
    scheduled = false;
    const batch = queue.splice(0, MAX_BATCH);
    if (queue.length > 0) schedule();
    if (sqlite.inTransaction) {
      // Called from inside someone's open transaction (a synchronous caller): run in place.
      for (const item of batch) runNested(item);
      return;
    }
    if (!runTogether(batch)) for (const item of batch) runAlone(item);
  };

  /** The batch in one transaction. False when a call failed after writing: nothing was committed. */
  const runTogether = (batch: Pending[]): boolean => {
    try {
      begin.run();
    } catch (e) {
      for (const item of batch) item.reject(e);
      return true;
    }
    const settled: (() => void)[] = [];
    for (const item of batch) {
      const before = totalChanges.get();
      try {
        const value = item.fn();
        settled.push(() => item.resolve(value));
      } catch (e) {
        if (sqlite.inTransaction && totalChanges.get() === before) {
          settled.push(() => item.reject(e));
          continue;
        }
        // It wrote before failing (or SQLite ended the transaction): undo everything, redo apart.
        if (sqlite.inTransaction) rollback.run();
        return false;
      }
    }
    try {
      commit.run();
    } catch (e) {
      if (sqlite.inTransaction) rollback.run();
      for (const item of batch) item.reject(e);
      return true;
    }
    for (const settle of settled) settle();
    return true;
  };

  const runAlone = (item: Pending): void => {
    try {
      begin.run();
      const value = item.fn();
      commit.run();
      item.resolve(value);
    } catch (e) {
      if (sqlite.inTransaction) rollback.run();
      item.reject(e);
    }
  };

  const runNested = (item: Pending): void => {
    try {
      item.resolve(sqlite.transaction(item.fn)());
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
