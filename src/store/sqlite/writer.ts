import type { Sqlite } from './client.js';

/**
 * Group commit, the SQLite engine's `Store.transaction`: calls made while the event loop is busy
 * are queued and, on the next turn, run one after another inside ONE `BEGIN IMMEDIATE … COMMIT`.
 * So N concurrent requests pay one commit instead of N, and still:
 *  - each call is atomic: a call that throws leaves nothing behind and rejects only its promise;
 *  - a promise resolves only after COMMIT returned, so "success" still means "on disk"
 *    (synchronous=FULL);
 *  - calls run strictly in order on one connection, each awaited to its end before the next
 *    starts, so read-then-write checks inside `fn` (idempotency, refund limits, maxSubscriptions)
 *    see every earlier call's writes, and the IMMEDIATE lock keeps other processes out.
 *
 * `fn` is async (the store boundary is), but the engine's `tx` methods are synchronous statements
 * wrapped in resolved promises: a batch runs from BEGIN to COMMIT in microtasks, with no I/O turn
 * in between. Only this connection writes; reads made outside a unit of work go to a second,
 * read-only connection (see sqlite/index.ts), so nobody sees a batch before its COMMIT.
 *
 * Calls are not wrapped in savepoints: a savepoint makes SQLite copy every page a call touches
 * into its statement journal, which doubled the cost of a renewal. Instead, a call that throws
 * having written nothing (total_changes() unchanged: the usual refusal — a duplicate, a limit)
 * simply rejects; a call that throws after writing rolls the whole batch back, and the batch is
 * then redone one call per transaction. So `fn` may run twice (its first run rolled back): it
 * must change nothing outside the database but what it returns (the Store contract).
 */
export interface Writer<X> {
  transaction<T>(fn: (tx: X) => T | Promise<T>): Promise<T>;
}

interface Pending<X> {
  fn: (tx: X) => unknown;
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
}

/**
 * Upper bound of calls in one commit, so one batch cannot hold the write lock for long (about
 * 15 ms at this size). Large enough for a renewal batch's results, the next batch's channel
 * writes and a claim together (2 × 256 + 1).
 */
const MAX_BATCH = 640;

export function createWriter<X>(sqlite: Sqlite, tx: X): Writer<X> {
  // Prepared once: these run for every batch, and exec() would re-parse them each time.
  const begin = sqlite.prepare('BEGIN IMMEDIATE');
  const commit = sqlite.prepare('COMMIT');
  const rollback = sqlite.prepare('ROLLBACK');
  const totalChanges = sqlite.prepare('SELECT total_changes()').pluck();
  const queue: Pending<X>[] = [];
  let scheduled = false;
  /** A batch is between BEGIN and COMMIT (its calls are being awaited): the next one waits. */
  let running = false;

  const flush = async (): Promise<void> => {
    scheduled = false;
    if (running) return;
    running = true;
    const batch = queue.splice(0, MAX_BATCH);
    try {
      if (!(await runTogether(batch))) for (const item of batch) await runAlone(item);
    } finally {
      running = false;
      // Calls queued meanwhile form the next batch on the next turn, as before the boundary was async.
      if (queue.length > 0) schedule();
    }
  };

  /** The batch in one transaction. False when a call failed after writing: nothing was committed. */
  const runTogether = async (batch: Pending<X>[]): Promise<boolean> => {
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
        const value = await item.fn(tx);
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

  const runAlone = async (item: Pending<X>): Promise<void> => {
    try {
      begin.run();
      const value = await item.fn(tx);
      commit.run();
      item.resolve(value);
    } catch (e) {
      if (sqlite.inTransaction) rollback.run();
      item.reject(e);
    }
  };

  const schedule = (): void => {
    if (!scheduled) {
      scheduled = true;
      setImmediate(() => void flush());
    }
  };

  return {
    transaction<T>(fn: (tx: X) => T | Promise<T>): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        queue.push({ fn, resolve: resolve as (v: unknown) => void, reject });
        if (!running) schedule();
      });
    },
  };
}
