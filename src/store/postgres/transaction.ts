import type { Socket } from 'node:net';
import type pg from 'pg';
import {
  DEADLOCK_DETECTED,
  isConnectionLost,
  PgConnectionLostError,
  SERIALIZATION_FAILURE,
  sqlState,
  UNIQUE_VIOLATION,
} from './errors.js';
import { type Batchable, Coalescer } from './coalesce.js';
import type { Conn } from './query.js';

/** One unit of work: a connection of its own, inside BEGIN … COMMIT. */
export interface PgTx {
  readonly client: pg.PoolClient;
  /** The connection for the repositories, with writes that need not be waited for (see TxConn). */
  readonly conn: TxConn;
}

/**
 * A unit of work's connection, pipelined (client.ts). A write whose answer the caller does not
 * need (an INSERT of a row whose id it made, an UPDATE that must simply happen) is sent and
 * `defer`red: the unit of work goes on at once and the write's answer arrives with the next
 * statement's, or with COMMIT's. Its failure is never lost: PostgreSQL aborts the transaction at
 * the failed statement, so every later statement fails and COMMIT ends in a rollback; the first
 * failure is what the unit of work, and then withTransaction, see (a unique violation stays a
 * unique violation, retried as such). Writes are sent in order, so they run in order.
 */
export class TxConn implements Conn {
  private pending: Promise<void>[] = [];
  private failure: { error: unknown } | undefined;
  private transactionWrites = 0;
  private corked = false;
  private readonly asked = new Coalescer({ query: (cfg) => this.send(cfg) });

  constructor(private readonly client: pg.PoolClient) {}

  /**
   * A statement the flows of this unit of work may share (coalesce.ts): sent with the others
   * asked in the same turn, as one statement, before anything else the connection sends.
   */
  ask<A, R>(kind: Batchable<A, R>, a: A): Promise<R> {
    if (kind.writesTransactions) this.transactionWrites++;
    return this.asked.ask(kind, a);
  }

  /** Sends what was asked of `ask` and not yet sent (before COMMIT, before any other statement). */
  flush(): void {
    this.asked.flush();
  }

  /**
   * Counts the statements sent so far that may change a row of `transactions` (any INSERT,
   * UPDATE or DELETE naming the table): a row read or returned at one count is still the row
   * while the count stays the same, for nobody else can change it under this unit of work's lock.
   */
  get transactionWriteMark(): number {
    return this.transactionWrites;
  }

  /**
   * Statements sent in one turn of the event loop (BEGIN and the first statement, deferred writes
   * and the COMMIT behind them) leave in one socket write instead of one each: the socket is
   * corked until the turn ends (pg corks around each statement; corks nest).
   */
  gather(): void {
    if (this.corked) return;
    const stream = (this.client as unknown as { connection?: { stream?: Partial<Pick<Socket, 'cork' | 'uncork'>> } })
      .connection?.stream;
    if (!stream?.cork || !stream.uncork) return;
    stream.cork();
    this.corked = true;
    process.nextTick(() => {
      this.corked = false;
      stream.uncork?.();
    });
  }

  query(cfg: pg.QueryConfig): Promise<pg.QueryResult> {
    this.asked.flush();
    if (WRITES_TRANSACTIONS.test(cfg.text)) this.transactionWrites++;
    return this.send(cfg);
  }

  private send(cfg: pg.QueryConfig): Promise<pg.QueryResult> {
    this.gather();
    return this.client.query(cfg).catch(async (e: unknown) => {
      // A statement refused because an earlier deferred write failed: report that write's error.
      await this.settle();
      throw e;
    });
  }

  defer(write: Promise<unknown>): void {
    this.pending.push(
      write.then(
        () => undefined,
        (e: unknown) => {
          this.failure ??= { error: e };
        },
      ),
    );
  }

  /** Waits for every deferred write; throws the first one's failure. */
  async settle(): Promise<void> {
    this.asked.flush();
    while (this.pending.length > 0) await Promise.all(this.pending.splice(0));
    if (this.failure) throw this.failure.error;
  }
}

export interface TransactionOptions {
  /** BEGIN READ ONLY; a read whose connection is lost is retried once on a new one. */
  readOnly?: boolean;
  isolation?: 'read committed' | 'repeatable read' | 'serializable';
  /**
   * Also retry on 23505: for units of work that read before they insert, where a retry finds
   * the row the concurrent winner inserted. Off by default: elsewhere a duplicate is an answer.
   */
  retryOnUniqueViolation?: boolean;
  /** Attempts in all for retryable conflicts (default 5). */
  maxAttempts?: number;
}

const DEFAULT_ATTEMPTS = 5;

const WRITES_TRANSACTIONS = /\b(?:UPDATE|INSERT\s+INTO|DELETE\s+FROM)\s+transactions\b/i;

/**
 * Runs fn in one transaction on one pooled connection and commits. fn may run more than once:
 * on a serialization failure (40001) or a deadlock (40P01), and on a unique violation (23505)
 * when asked, the transaction is rolled back and fn runs again after a short jittered pause,
 * so fn must not have effects outside the database. Anything else is rolled back and thrown.
 *
 * A lost connection: a read is retried once; a write is never re-run (its effects may be
 * outside the database, e.g. a charge). If the connection dropped while COMMIT was in flight,
 * the server is asked on a new connection whether that transaction committed (txid_status): if
 * it did, the result is returned (the change is saved); otherwise PgConnectionLostError says
 * nothing was written.
 */
export async function withTransaction<T>(
  pool: pg.Pool,
  fn: (tx: PgTx) => Promise<T>,
  opts: TransactionOptions = {},
): Promise<T> {
  const maxAttempts = opts.maxAttempts ?? DEFAULT_ATTEMPTS;
  const begin = `BEGIN ISOLATION LEVEL ${(opts.isolation ?? 'read committed').toUpperCase()}${opts.readOnly ? ' READ ONLY' : ''}`;
  let reconnects = 0;
  for (let attempt = 1; ; attempt++) {
    let client: pg.PoolClient;
    try {
      client = await pool.connect();
    } catch (e) {
      // Nothing has run yet: another connection is safe for reads and writes alike.
      if (!isConnectionLost(e)) throw e;
      if (reconnects++ < 1) continue;
      throw new PgConnectionLostError(false, e);
    }
    // The server may end a checked-out connection between statements (restart, termination);
    // the next statement fails and is handled below, but the event itself must not be unhandled.
    client.on('error', ignore);
    const release = (err?: Error): void => {
      client.removeListener('error', ignore);
      client.release(err ?? false);
    };
    let stage: 'begin' | 'work' | 'commit' = 'begin';
    let txid: string | undefined;
    let result: T | undefined;
    const conn = new TxConn(client);
    // Whether BEGIN was answered: a connection lost before that ran nothing that could commit.
    let begun = false;
    try {
      // Deferred: the connection is pipelined (client.ts), so fn's first statement goes out right
      // behind BEGIN and the two share a round trip; the server runs it inside the transaction.
      // The transaction id (same message) lets a lost COMMIT be looked up afterwards.
      conn.gather();
      conn.defer(
        client.query(opts.readOnly ? begin : `${begin}; SELECT txid_current()::text AS txid`).then((rs) => {
          if (!opts.readOnly) txid = (rs as unknown as pg.QueryResult[])[1]?.rows[0]?.txid as string | undefined;
          begun = true;
        }),
      );
      stage = 'work';
      const tx: PgTx = { client, conn };
      try {
        result = await fn(tx);
      } catch (e) {
        // A lost connection or a failed BEGIN fails whatever came behind it; report the first failure.
        await conn.settle();
        throw e;
      }
      // COMMIT goes out behind the deferred writes; if one of them failed, the server has aborted
      // the transaction and turns this COMMIT into a rollback, and settle() throws that failure.
      stage = 'commit';
      conn.flush();
      conn.gather();
      const commit = client.query('COMMIT');
      const settled = conn.settle();
      await Promise.allSettled([commit, settled]);
      await settled;
      await commit;
      release();
      return result;
    } catch (e) {
      if (isConnectionLost(e)) {
        release(e as Error);
        if (stage === 'begin' || !begun || opts.readOnly) {
          if (reconnects++ < 1) continue;
          throw new PgConnectionLostError(false, e);
        }
        if (stage === 'commit' && txid !== undefined) {
          const status = await committedStatus(pool, txid);
          if (status === 'committed') return result as T;
          throw new PgConnectionLostError(status === 'aborted' ? false : 'unknown', e);
        }
        // The session ended inside an open transaction: the server rolled all of it back.
        throw new PgConnectionLostError(false, e);
      }
      await rollback(client, release);
      if (attempt < maxAttempts && retryable(e, opts)) {
        await pause(attempt);
        continue;
      }
      throw e;
    }
  }
}

function retryable(e: unknown, opts: TransactionOptions): boolean {
  const code = sqlState(e);
  return (
    code === SERIALIZATION_FAILURE ||
    code === DEADLOCK_DETECTED ||
    (code === UNIQUE_VIOLATION && opts.retryOnUniqueViolation === true)
  );
}

async function rollback(client: pg.PoolClient, release: (err?: Error) => void): Promise<void> {
  try {
    await client.query('ROLLBACK');
    release();
  } catch (e) {
    // A connection that cannot roll back is dropped, not handed to the next caller.
    release(e as Error);
  }
}

function ignore(): void {}

/** Full jitter over an exponential ceiling (10, 20, 40 … 200 ms): colliding writers spread out. */
function pause(attempt: number): Promise<void> {
  const ceiling = Math.min(200, 5 * 2 ** attempt);
  return new Promise((resolve) => setTimeout(resolve, Math.random() * ceiling));
}

/**
 * Whether the transaction whose COMMIT was cut off committed. A backend that has not yet
 * noticed its client left reports 'in progress' for a moment; it is asked again for up to ~10 s,
 * for a loaded server can take seconds to notice, and 'unknown' is the answer nobody wants.
 */
async function committedStatus(pool: pg.Pool, txid: string): Promise<'committed' | 'aborted' | 'unknown'> {
  for (let i = 0; i < 200; i++) {
    try {
      const r = await pool.query<{ s: string | null }>('SELECT txid_status($1::bigint) AS s', [txid]);
      const s = r.rows[0]?.s;
      if (s === 'committed' || s === 'aborted') return s;
      if (s === null || s === undefined) return 'unknown';
    } catch {
      // The server itself may be restarting; keep asking for a while.
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return 'unknown';
}
