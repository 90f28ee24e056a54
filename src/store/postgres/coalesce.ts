import type { Conn } from './query.js';

/**
 * A statement that several flows of one unit of work, asking at once, can share: `one` is the
 * statement a caller alone sends (unchanged), `many` the same for every caller in ONE statement
 * (arrays, `unnest`), answering each in order. A renewal batch's 256 outcomes, recorded side by
 * side (writeTogether), then cost the backend one statement per step instead of 256: PostgreSQL
 * executes a pipelined unit of work's statements one after another, and the per-statement work
 * (executor start, one index probe, one answer) bounded renewals (BENCHMARKS.md).
 */
export interface Batchable<A, R> {
  one(conn: Conn, a: A): Promise<R>;
  /** Must send its statements before it returns (they keep their place in the connection's order). */
  many(conn: Conn, as: readonly A[]): Promise<R[]>;
  /** Calls with one key are never in one statement (two changes of one row stay two, in order). */
  key?(a: A): string | undefined;
  /** It writes `transactions` (TxConn's write mark counts it when it is asked, not when sent). */
  writesTransactions?: boolean;
}

interface Call<A, R> {
  a: A;
  resolve: (r: R) => void;
  reject: (e: unknown) => void;
}

interface Segment {
  kind: Batchable<unknown, unknown>;
  calls: Call<unknown, unknown>[];
  keys: Set<string>;
}

/**
 * The statements asked for but not yet sent, in the order asked: consecutive calls of one kind
 * share a segment, and segments go out in order, so every flow's statements keep their order
 * (a flow asks for its next statement only after the last, or defers a write and goes on). Sent
 * when the current turn's promise callbacks have all run — every flow a result woke has asked by
 * then — or earlier, before any other statement of the connection (`flush`).
 */
export class Coalescer {
  private queued: Segment[] = [];

  constructor(private readonly send: Conn) {}

  ask<A, R>(kind: Batchable<A, R>, a: A): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      const key = kind.key?.(a);
      const last = this.queued.at(-1);
      let seg = last && last.kind === kind && !(key !== undefined && last.keys.has(key)) ? last : undefined;
      if (!seg) {
        // process.nextTick runs after the promise callbacks now queued (Node drains them first).
        if (this.queued.length === 0) process.nextTick(() => this.flush());
        seg = { kind: kind as Batchable<unknown, unknown>, calls: [], keys: new Set() };
        this.queued.push(seg);
      }
      if (key !== undefined) seg.keys.add(key);
      seg.calls.push({ a, resolve, reject } as Call<unknown, unknown>);
    });
  }

  /** Sends every queued segment, in order. */
  flush(): void {
    if (this.queued.length === 0) return;
    const segments = this.queued;
    this.queued = [];
    for (const { kind, calls } of segments) {
      let sent: Promise<unknown[]>;
      try {
        sent =
          calls.length === 1
            ? kind.one(this.send, (calls[0] as Call<unknown, unknown>).a).then((r) => [r])
            : kind.many(
                this.send,
                calls.map((c) => c.a),
              );
      } catch (e) {
        sent = Promise.reject(e);
      }
      sent.then(
        (rs) => {
          for (const [i, c] of calls.entries()) c.resolve(rs[i]);
        },
        (e: unknown) => {
          for (const c of calls) c.reject(e);
        },
      );
    }
  }
}
