import { invalidParam } from '../../domain/errors.js';
import { eventArgs } from '../sql/outbox.js';
import { SqlReads } from '../sql/reads.js';
import { pendingRecordArgs } from '../sql/subscriptions.js';
import { type EngineTx, SqlTx } from '../sql/tx.js';
import type {
  Acceptance,
  Accepted,
  ChargeOutcome,
  CopyProgress,
  CopySummary,
  IdempotencyRow,
  IdempotencyScope,
  OutcomeRecorded,
  SandboxPaid,
  RateHitResult,
  RekeyOptions,
  NewCustomerEmail,
  NewEvent,
  NewInvoice,
  NewRecord,
  SandboxChargeRow,
  Store,
  SubscriptionRow,
  TransactionRow,
  Tx,
} from '../store.js';
import { openPgStore, type OpenPgOptions, type PgStore as PgHandle } from './client.js';
import { isConnectionLost } from './errors.js';
import { keyPlainFingerprints } from './fingerprints.js';
import { type Conn, pgDb, run } from './query.js';
import { enterRunning, leaveRunning, takeWindowSlot } from './call-window.js';
import { merchantBatches } from './merchant-batches.js';
import * as batched from './batched.js';
import {
  acceptTransaction,
  type Chain,
  type ChainRow,
  payOnSandbox,
  recordSandboxOutcome,
  writeChain,
  writeChains,
} from './pay.js';
import { hitRateLimit, sweepRateLimits } from './rate-limit.js';
import * as renewals from './renewals.js';
import { withTransaction, type TxConn } from './transaction.js';
import { lockIdempotency } from './transactions.js';
import { settleZone } from '../sql/zone.js';

/**
 * The PostgreSQL engine behind the store boundary: the shared statements (store/sql/), each a
 * named prepared statement per connection (query.ts), and its own where PostgreSQL is used its
 * own way (SKIP LOCKED claims, multi-row renewal statements, advisory locks, pipelining).
 *  - `Store` reads run on the pool, each in its own autocommit statement: they see the last
 *    commit. A read whose connection is lost is retried once on a new connection.
 *  - A unit of work runs on one pooled connection inside BEGIN … COMMIT (READ COMMITTED), through
 *    withTransaction: rerun after a serialization failure, a deadlock or a unique violation (a
 *    concurrent duplicate insert: the rerun reads the winner's row); a write whose connection is
 *    lost is never rerun and surfaces as PgConnectionLostError (answered 9999, nothing written).
 *  - Locking reads are SELECT … FOR UPDATE; conditional writes are single UPDATE … WHERE
 *    statements whose row count is the answer (PostgreSQL re-checks the WHERE against the
 *    committed row after waiting for its lock); claims use FOR UPDATE SKIP LOCKED.
 */
function engineTx(conn: TxConn): EngineTx {
  return {
    claimDueRecords: (ids, c) => renewals.claimDueRecords(conn, ids, c),
  };
}

/**
 * One per unit of work, on its connection. Writes whose answer the unit of work does not use are
 * deferred (TxConn): sent at once, their answers collected with the next statement's or COMMIT's,
 * so a unit of work's trailing writes and its COMMIT share one round trip.
 */
class PgTx extends SqlTx {
  private changed: { row: TransactionRow; mark: number } | undefined;

  constructor(private readonly conn: TxConn) {
    super(pgDb(conn), engineTx(conn));
  }

  protected override later(write: Promise<unknown>): Promise<void> {
    this.conn.defer(write);
    return Promise.resolve();
  }

  /** See transactions.lockIdempotency: the first unit of work on a requestId decides, duplicates wait for it. */
  override getIdempotency(
    merchantId: string,
    scope: IdempotencyScope,
    requestId: string,
  ): Promise<IdempotencyRow | undefined> {
    return lockIdempotency(this.conn, merchantId, scope, requestId);
  }

  // A renewal batch's outcomes, recorded side by side, share these statements (batched.ts).
  override finishRenewalTransaction(
    id: string,
    r: { approved: boolean; failReason: string | null; channelRef: string | null; now: number },
  ): Promise<void> {
    return this.later(this.conn.ask(batched.finishTransaction, { id, ...r }));
  }
  override addChargeToSubscription(
    id: string,
    c: { approved: boolean; amount: number; paidThrough: number | null; now: number },
  ): Promise<void> {
    return this.later(this.conn.ask(batched.addCharge, { id, ...c }));
  }
  override getSubscriptionById(id: string): Promise<SubscriptionRow | undefined> {
    return this.conn.ask(batched.readSubscription, id);
  }

  override settleRecord(
    id: string,
    status: 'SUCCESS' | 'FAILED' | 'CANCELLED',
    failReason: string | null,
    now: number,
  ) {
    return this.conn.ask(batched.settleRecord, { id, status, failReason, now });
  }

  override async insertPendingRecord(r: NewRecord): Promise<string> {
    const args = pendingRecordArgs(r);
    this.conn.defer(this.conn.ask(batched.insertPendingRecord, args));
    return args.id;
  }

  override async enqueueEvent(e: NewEvent): Promise<string | undefined> {
    const { id, args } = eventArgs(e);
    return (await this.conn.ask(batched.insertEvents, { ...args, id })) ? id : undefined;
  }

  override enqueueEmail(e: NewCustomerEmail): Promise<string | undefined> {
    return this.conn.ask(batched.enqueueEmails, e);
  }

  override issueInvoice(inv: NewInvoice): Promise<string | undefined> {
    return this.conn.ask(batched.issueInvoices, inv);
  }

  protected override changedTransaction(row: TransactionRow): void {
    this.changed = { row, mark: this.conn.transactionWriteMark };
  }

  /**
   * The row this unit of work just changed, as the UPDATE returned it, while no later statement
   * could have changed it again (the row stays locked by this transaction until it ends): the
   * read that usually follows a state change costs no round trip.
   */
  override async getTransaction(id: string): Promise<TransactionRow | undefined> {
    const c = this.changed;
    if (c && c.row.id === id && c.mark === this.conn.transactionWriteMark) return { ...c.row };
    return super.getTransaction(id);
  }

  /**
   * The sandbox stands in for a processor: nothing is answered on its ledger alone. Every caller
   * records the outcome in paygate's own tables afterwards, in a later transaction that commits
   * with synchronous_commit=on, and PostgreSQL writes its log in order: that commit reaching
   * disk carries this one with it. So this commit need not wait for the disk itself (one flush
   * fewer per charge). A crash before that later commit loses both, and nothing was answered:
   * a repeat of the request or the next renewal run asks the sandbox again, which decides the
   * same way. Sent in the same round trip as the INSERT (pipelined connection).
   */
  override insertSandboxCharge(row: SandboxChargeRow): Promise<boolean> {
    // Once per unit of work: a batch of charges (a renewal batch's, coalesced) needs it said once.
    if (!this.asyncCommit) {
      this.asyncCommit = true;
      this.conn.defer(run(this.conn, 'SET LOCAL synchronous_commit = off'));
    }
    return this.conn.ask(batched.insertSandboxCharges, row);
  }

  private asyncCommit = false;
}

/** The pool as a Conn for reads outside a unit of work: a lost connection is retried once. */
function readConn(handle: PgHandle): Conn {
  return {
    async query(cfg) {
      try {
        return await handle.pool.query(cfg);
      } catch (e) {
        if (!isConnectionLost(e)) throw e;
        return handle.pool.query(cfg);
      }
    },
  };
}

export class PgStore extends SqlReads implements Store {
  constructor(readonly handle: PgHandle) {
    const reads = readConn(handle);
    super(pgDb(reads));
  }

  transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    return withTransaction(this.handle.pool, (t) => fn(new PgTx(t.conn)), { retryOnUniqueViolation: true });
  }

  /**
   * One statement each (pay.ts): a PAY's acceptance alone (before a charge outside the database),
   * a sandbox charge's outcome, a new sandbox PAY whole. Those that take a merchant's invoice
   * number and are queued behind another of its merchant commit together (merchant-batches.ts).
   */
  acceptTransaction(a: Acceptance): Promise<Accepted> {
    return acceptTransaction(this.handle.pool, a);
  }

  private readonly chains = merchantBatches<Chain, ChainRow | undefined>(
    (c) => c.merchantId,
    (c) => writeChain(this.handle.pool, c),
    (cs) => writeChains(this.handle.pool, cs),
  );

  recordSandboxOutcome(o: ChargeOutcome): Promise<OutcomeRecorded> {
    return recordSandboxOutcome(this.chains, o);
  }

  payOnSandbox(a: Acceptance, o: ChargeOutcome): Promise<SandboxPaid> {
    return payOnSandbox(this.chains, a, o);
  }

  settleZone(wanted: string | undefined): Promise<string> {
    return settleZone(pgDb(this.handle.pool), wanted);
  }

  async backup(_file: string): Promise<{ pages: number }> {
    throw invalidParam(
      'db',
      'db backup copies SQLite database files; this database is PostgreSQL: back it up with pg_dump (for example `pg_dump -Fc -f paygate.dump <database>`) or copy it into a SQLite file with `paygate db copy --to FILE`',
    );
  }

  keyPlainFingerprints(opts: RekeyOptions): Promise<number> {
    return withTransaction(this.handle.pool, (t) => keyPlainFingerprints(t.client, opts));
  }

  /** From one REPEATABLE READ snapshot on a pooled connection (store/copy.ts orchestrates). */
  async copyTo(target: string, onProgress?: (p: CopyProgress) => void, signal?: AbortSignal): Promise<CopySummary> {
    // `db copy` only: the copy modules (and the other engine) are not loaded by any other command.
    const [{ copyInto }, { pgCopySource }] = await Promise.all([import('../copy.js'), import('./copy.js')]);
    return copyInto(await pgCopySource(this.handle.pool), target, onProgress, { signal });
  }

  /**
   * After a key rotation: VACUUM FULL rewrites the tables holding sealed values, so their files
   * keep no dead row with an old ciphertext. WAL archives, replicas' history and pg_dump files
   * made before the rotation are the operator's to expire.
   */
  async compact(): Promise<void> {
    await this.handle.pool.query('VACUUM (FULL) merchants, cards');
  }

  /** Rate limits counted in the database, so a budget holds whichever instance answers. */
  countRateHit(key: string, limit: number, now: number): Promise<RateHitResult> {
    return hitRateLimit(this.handle.pool, key, limit, now);
  }

  async sweepRateHits(now: number): Promise<void> {
    await sweepRateLimits(this.handle.pool, now);
  }

  /** A Stripe account's call budget, shared by every `serve` and `renew` on the database. */
  takeCallSlot(key: string, limit: number, now: number, windowMs: number): Promise<number> {
    return takeWindowSlot(this.handle.pool, key, limit, now, windowMs);
  }

  /** A place among a Stripe account's calls under way, counted for every process on the database. */
  enterCallRunning(key: string, limit: number, now: number, until: number): Promise<boolean> {
    return enterRunning(this.handle.pool, key, limit, now, until);
  }

  leaveCallRunning(key: string, until: number): Promise<void> {
    return leaveRunning(this.handle.pool, key, until);
  }

  close(): Promise<void> {
    return this.handle.close();
  }
}

/** Open (migrating under an advisory lock if needed) the PostgreSQL database at `url`. */
export async function openPostgresStore(url: string, opts: OpenPgOptions = {}): Promise<PgStore> {
  return new PgStore(await openPgStore(url, opts));
}
