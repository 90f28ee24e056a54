import { invalidParam } from '../../domain/errors.js';
import type {
  AttemptOutcome,
  BillingRecordRow,
  CardRow,
  ClaimedEvent,
  ClaimedRecord,
  CopyProgress,
  CopySummary,
  DueCursor,
  DuePage,
  EventClaim,
  EventFilter,
  EventRow,
  IdempotencyRow,
  IdempotencyScope,
  MerchantRow,
  NewEvent,
  NewIdempotency,
  NewRecord,
  OperationalCounts,
  OwnedId,
  PageWindow,
  PlanSwitch,
  RecordPrice,
  RateHitResult,
  SealedColumn,
  SealedRow,
  PlanRow,
  CouponRow,
  Reads,
  RecordStatus,
  RefundOutcome,
  RefundRow,
  RekeyOptions,
  RevenueMonthFigures,
  RevenueQuery,
  SandboxChargeRow,
  Store,
  SubscriptionFilter,
  SubscriptionListRow,
  SubscriptionRow,
  SubscriptionStatusPatch,
  TrackingRow,
  TrackingUpsert,
  TransactionFilter,
  TransactionRow,
  Tx,
  StripeCardIds,
} from '../store.js';
import { openPgStore, type OpenPgOptions, type PgStore as PgHandle } from './client.js';
import * as cards from './cards.js';
import * as coupons from './coupons.js';
import * as delivery from './delivery.js';
import { isConnectionLost } from './errors.js';
import { keyPlainFingerprints } from './fingerprints.js';
import * as lookup from './lookup.js';
import * as merchants from './merchants.js';
import * as operations from './operations.js';
import * as outbox from './outbox.js';
import * as plans from './plans.js';
import type { Conn } from './query.js';
import { hitRateLimit, sweepRateLimits } from './rate-limit.js';
import * as refunds from './refunds.js';
import { revenueFigures } from './report.js';
import * as renewals from './renewals.js';
import * as sandbox from './sandbox.js';
import * as subs from './subscriptions.js';
import * as tracking from './tracking.js';
import { withTransaction, type TxConn } from './transaction.js';
import * as txns from './transactions.js';
import * as vault from './vault.js';
import { settleZone } from './zone.js';

/**
 * The PostgreSQL engine behind the store boundary: the same repositories as the SQLite engine,
 * one module per table family, as parameterised statements prepared once per connection.
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
class PgReads implements Reads {
  constructor(protected readonly db: Conn) {}

  async getMerchant(id: string): Promise<MerchantRow | undefined> {
    return merchants.getMerchant(this.db, id);
  }
  async getMerchantByApiKey(apiKey: string): Promise<MerchantRow | undefined> {
    return merchants.getMerchantByApiKey(this.db, apiKey);
  }
  async listMerchants(): Promise<MerchantRow[]> {
    return merchants.listMerchantRows(this.db);
  }
  async getPlan(merchantId: string, id: string): Promise<PlanRow | undefined> {
    return plans.getPlan(this.db, merchantId, id);
  }
  async listPlans(merchantId: string, status?: 'ACTIVE' | 'INACTIVE'): Promise<PlanRow[]> {
    return plans.listPlanRows(this.db, merchantId, status);
  }
  async getPlanInfo(planId: string): Promise<{ name: string; description: string | null } | undefined> {
    return plans.getPlanInfo(this.db, planId);
  }
  async getCoupon(merchantId: string, code: string): Promise<CouponRow | undefined> {
    return coupons.getCoupon(this.db, merchantId, code);
  }
  async listCoupons(merchantId: string): Promise<CouponRow[]> {
    return coupons.listCoupons(this.db, merchantId);
  }
  async getTransaction(id: string): Promise<TransactionRow | undefined> {
    return txns.getTransaction(this.db, id);
  }
  async getMerchantTransaction(merchantId: string, id: string): Promise<TransactionRow | undefined> {
    return txns.getMerchantTransaction(this.db, merchantId, id);
  }
  async getTransactionByRelation(merchantId: string, relationId: string): Promise<TransactionRow | undefined> {
    return txns.getByRelation(this.db, merchantId, relationId);
  }
  async getTransactionByPageToken(token: string): Promise<TransactionRow | undefined> {
    return txns.getByPageToken(this.db, token);
  }
  async listTransactions(f: TransactionFilter): Promise<TransactionRow[]> {
    return txns.listTransactionRows(this.db, f);
  }
  async stalePageIds(now: number, limit: number): Promise<string[]> {
    return txns.stalePageIds(this.db, now, limit);
  }
  async inFlightChargeIds(before: number, limit: number): Promise<string[]> {
    return txns.inFlightChargeIds(this.db, before, limit);
  }
  async getTransactionByChannelRef(merchantId: string, channelRef: string): Promise<TransactionRow | undefined> {
    return txns.getByChannelRef(this.db, merchantId, channelRef);
  }
  async getRefundByChannelRef(merchantId: string, channelRef: string): Promise<RefundRow | undefined> {
    return refunds.getRefundByChannelRef(this.db, merchantId, channelRef);
  }
  async getIdempotency(
    merchantId: string,
    scope: IdempotencyScope,
    requestId: string,
  ): Promise<IdempotencyRow | undefined> {
    return txns.getIdempotency(this.db, merchantId, scope, requestId);
  }
  async getRefund(id: string): Promise<RefundRow | undefined> {
    return refunds.getRefund(this.db, id);
  }
  async stalePendingRefundIds(before: number, limit: number): Promise<string[]> {
    return refunds.stalePendingRefundIds(this.db, before, limit);
  }
  async getSubscription(merchantId: string, id: string): Promise<SubscriptionRow | undefined> {
    return subs.getSubscription(this.db, merchantId, id);
  }
  async getSubscriptionById(id: string): Promise<SubscriptionRow | undefined> {
    return subs.getSubscriptionById(this.db, id);
  }
  async getSubscriptionByCode(merchantId: string, code: string): Promise<SubscriptionRow | undefined> {
    return subs.getSubscriptionByCode(this.db, merchantId, code);
  }
  async findSubscriptionId(ref: string, merchantId: string | undefined): Promise<string | undefined> {
    return subs.findSubscriptionId(this.db, ref, merchantId);
  }
  async subscriptionCodeOf(subscriptionId: string): Promise<string | undefined> {
    return txns.subscriptionCodeOf(this.db, subscriptionId);
  }
  async listSubscriptions(merchantId: string, filter: SubscriptionFilter): Promise<SubscriptionListRow[]> {
    return subs.listSubscriptionRows(this.db, merchantId, filter);
  }
  async nextBillingTime(subscriptionId: string): Promise<number | null> {
    return subs.nextBillingTime(this.db, subscriptionId);
  }
  async pendingRecords(subscriptionId: string): Promise<BillingRecordRow[]> {
    return subs.pendingRecords(this.db, subscriptionId);
  }
  async latestRecord(subscriptionId: string): Promise<BillingRecordRow | undefined> {
    return subs.latestRecord(this.db, subscriptionId);
  }
  async getSubscriptionByCardToken(token: string): Promise<SubscriptionRow | undefined> {
    return subs.getSubscriptionByCardToken(this.db, token);
  }
  async countUnsuccessfulCardChecks(subscriptionId: string, since: number): Promise<number> {
    return subs.countUnsuccessfulCardChecks(this.db, subscriptionId, since);
  }
  async stalePendingChanges(before: number, limit: number): Promise<string[]> {
    return subs.stalePendingChanges(this.db, before, limit);
  }
  async getCard(id: string): Promise<CardRow | undefined> {
    return cards.getCard(this.db, id);
  }
  async getRecord(id: string): Promise<BillingRecordRow | undefined> {
    return subs.getRecord(this.db, id);
  }
  async countRecords(subscriptionId: string, status: RecordStatus | undefined): Promise<number> {
    return subs.countRecords(this.db, subscriptionId, status);
  }
  async pageRecords(
    subscriptionId: string,
    status: RecordStatus | undefined,
    limit: number,
    offset: number,
  ): Promise<BillingRecordRow[]> {
    return subs.pageRecords(this.db, subscriptionId, status, limit, offset);
  }
  async dueRecords(now: number, limit: number, cursor: DueCursor): Promise<DuePage> {
    return renewals.dueRecords(this.db, now, limit, cursor);
  }
  async countDue(now: number): Promise<number> {
    return renewals.countDue(this.db, now);
  }
  async listEvents(f: EventFilter): Promise<EventRow[]> {
    return outbox.listEvents(this.db, f);
  }
  async getEvent(id: string): Promise<EventRow | undefined> {
    return outbox.getEvent(this.db, id);
  }
  async getMeta(key: string): Promise<string | undefined> {
    return vault.getMeta(this.db, key);
  }
  async planOwner(planId: string): Promise<string | undefined> {
    return lookup.planOwner(this.db, planId);
  }
  async subscriptionOwner(idOrCode: string): Promise<{ id: string; code: string; merchantId: string } | undefined> {
    return lookup.subscriptionOwner(this.db, idOrCode);
  }
  async transactionOwner(id: string): Promise<string | undefined> {
    return lookup.transactionOwner(this.db, id);
  }
  async pagePlanIds(
    f: { merchantId?: string | undefined; status?: string | undefined } & PageWindow,
  ): Promise<OwnedId[]> {
    return lookup.pagePlanIds(this.db, f);
  }
  async pageSubscriptionIds(
    f: { merchantId?: string | undefined; userId?: string | undefined; status?: string | undefined } & PageWindow,
  ): Promise<OwnedId[]> {
    return lookup.pageSubscriptionIds(this.db, f);
  }
  async pageTransactionIds(
    f: { merchantId?: string | undefined; status?: number | undefined } & PageWindow,
  ): Promise<OwnedId[]> {
    return lookup.pageTransactionIds(this.db, f);
  }
  async pageEventIds(
    f: {
      merchantId?: string | undefined;
      status?: string | undefined;
      subscriptionId?: string | undefined;
    } & PageWindow,
  ): Promise<OwnedId[]> {
    return lookup.pageEventIds(this.db, f);
  }
  async listTracking(
    f: { merchantId?: string | undefined; transactionId?: string | undefined } & PageWindow,
  ): Promise<TrackingRow[]> {
    return tracking.listTracking(this.db, f);
  }
}

/**
 * One per unit of work, on its connection. Writes whose answer the unit of work does not use are
 * deferred (TxConn): sent at once, their answers collected with the next statement's or COMMIT's,
 * so a unit of work's trailing writes and its COMMIT share one round trip.
 */
class PgTx extends PgReads implements Tx {
  private changed: { row: TransactionRow; mark: number } | undefined;

  constructor(private readonly conn: TxConn) {
    super(conn);
  }

  private later(write: Promise<unknown>): Promise<void> {
    this.conn.defer(write);
    return Promise.resolve();
  }

  /** See transactions.lockIdempotency: the first unit of work on a requestId decides, duplicates wait for it. */
  override async getIdempotency(
    merchantId: string,
    scope: IdempotencyScope,
    requestId: string,
  ): Promise<IdempotencyRow | undefined> {
    return txns.lockIdempotency(this.db, merchantId, scope, requestId);
  }
  async lockTransaction(id: string): Promise<TransactionRow | undefined> {
    return txns.lockTransaction(this.db, id);
  }
  async lockSubscription(merchantId: string, id: string): Promise<SubscriptionRow | undefined> {
    return subs.lockSubscription(this.db, merchantId, id);
  }
  async insertMerchant(row: MerchantRow): Promise<void> {
    await merchants.insertMerchant(this.db, row);
  }
  async updateMerchant(id: string, patch: Partial<Omit<MerchantRow, 'id'>>): Promise<void> {
    await merchants.updateMerchantRow(this.db, id, patch);
  }
  async insertPlan(row: PlanRow): Promise<void> {
    await plans.insertPlan(this.db, row);
  }
  async setPlanStatus(id: string, status: 'ACTIVE' | 'INACTIVE'): Promise<void> {
    await plans.setPlanStatus(this.db, id, status);
  }
  async reservePlanSlot(planId: string): Promise<boolean> {
    return plans.reservePlanSlot(this.db, planId);
  }
  async releasePlanSlot(planId: string): Promise<void> {
    await plans.releasePlanSlot(this.db, planId);
  }
  async insertCoupon(row: CouponRow): Promise<void> {
    await coupons.insertCoupon(this.db, row);
  }
  async setCouponStatus(id: string, status: 'ACTIVE' | 'INACTIVE'): Promise<void> {
    await coupons.setCouponStatus(this.db, id, status);
  }
  async reserveCouponRedemption(id: string, now: number): Promise<boolean> {
    return coupons.reserveCouponRedemption(this.db, id, now);
  }
  insertTransaction(row: TransactionRow): Promise<void> {
    return this.later(txns.insertTransaction(this.db, row));
  }
  insertIdempotency(row: NewIdempotency): Promise<void> {
    return this.later(txns.insertIdempotency(this.db, row));
  }
  async updateTransactionIf(
    id: string,
    fromStatus: number,
    patch: Partial<Omit<TransactionRow, 'id'>>,
  ): Promise<boolean> {
    const r = await txns.updateTransactionIf(this.db, id, fromStatus, patch);
    if (r.row) this.changed = { row: r.row, mark: this.conn.transactionWriteMark };
    return r.updated;
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
  async claimCharge(id: string, now: number, leaseMs: number): Promise<boolean> {
    return txns.claimCharge(this.db, id, now, leaseMs);
  }
  async releaseCharge(id: string, now: number, leaseMs: number): Promise<void> {
    await txns.releaseCharge(this.db, id, now, leaseMs);
  }
  async holdPage(id: string, openStatus: number, now: number, until: number): Promise<boolean> {
    return txns.holdPage(this.db, id, openStatus, now, until);
  }
  async closeOpenCharge(id: string, status: number, now: number): Promise<boolean> {
    return txns.closeOpenCharge(this.db, id, status, now);
  }
  async insertRefund(row: RefundRow): Promise<void> {
    await refunds.insertRefund(this.db, row);
  }
  async reserveRefund(txnId: string, amount: number, now: number): Promise<boolean> {
    return refunds.reserveRefund(this.db, txnId, amount, now);
  }
  async settleRefund(id: string, outcome: RefundOutcome): Promise<boolean> {
    return refunds.settleRefund(this.db, id, outcome);
  }
  async noteRefundRef(id: string, channelRef: string): Promise<void> {
    await refunds.noteRefundRef(this.db, id, channelRef);
  }
  async discardRefusedRefund(id: string): Promise<boolean> {
    return refunds.discardRefusedRefund(this.db, id);
  }
  async discardUncharged(id: string): Promise<boolean> {
    return txns.discardUncharged(this.db, id);
  }
  async settleReservation(txnId: string, amount: number, refunded: boolean, now: number): Promise<void> {
    await refunds.settleReservation(this.db, txnId, amount, refunded, now);
  }
  async insertCard(row: CardRow): Promise<void> {
    await cards.insertCard(this.db, row);
  }
  async setStripeCard(id: string, card: StripeCardIds): Promise<void> {
    await cards.setStripeCard(this.db, id, card);
  }
  async deleteCard(id: string): Promise<void> {
    await cards.deleteCard(this.db, id);
  }
  async insertSubscription(row: SubscriptionRow): Promise<void> {
    await subs.insertSubscription(this.db, row);
  }
  async setSubscriptionStatus(id: string, patch: SubscriptionStatusPatch): Promise<void> {
    await subs.setSubscriptionStatus(this.db, id, patch);
  }
  async activateSubscription(id: string, a: { paidThrough: number; amount: number; now: number }): Promise<boolean> {
    return subs.activateSubscription(this.db, id, a);
  }
  async expireSubscription(id: string, now: number): Promise<boolean> {
    return subs.expireSubscription(this.db, id, now);
  }
  addChargeToSubscription(
    id: string,
    c: { approved: boolean; amount: number; paidThrough: number | null; now: number },
  ): Promise<void> {
    return this.later(renewals.addChargeToSubscription(this.db, id, c));
  }
  async insertBillingRecord(row: BillingRecordRow): Promise<void> {
    await subs.insertBillingRecord(this.db, row);
  }
  async setSubscriptionCard(id: string, cardId: string, now: number): Promise<void> {
    await subs.setSubscriptionCard(this.db, id, cardId, now);
  }
  async setCardUpdateToken(id: string, token: string | null, expiresAt: number | null): Promise<void> {
    await subs.setCardUpdateToken(this.db, id, token, expiresAt);
  }
  async rescheduleRecord(id: string, scheduledTime: number): Promise<boolean> {
    return subs.rescheduleRecord(this.db, id, scheduledTime);
  }
  async applyPlanChange(id: string, c: PlanSwitch): Promise<void> {
    await subs.applyPlanChange(this.db, id, c);
  }
  async setPendingPlan(id: string, planId: string | null, now: number): Promise<void> {
    await subs.setPendingPlan(this.db, id, planId, now);
  }
  async spendCredit(id: string, amount: number, now: number): Promise<void> {
    await subs.spendCredit(this.db, id, amount, now);
  }
  async repriceRecord(id: string, p: RecordPrice): Promise<boolean> {
    return subs.repriceRecord(this.db, id, p);
  }
  async insertPendingRecord(r: NewRecord): Promise<string> {
    const { id, write } = subs.sendPendingRecord(this.db, r);
    await this.later(write);
    return id;
  }
  async settleFirstRecord(
    id: string,
    status: 'SUCCESS' | 'FAILED',
    failReason: string | null,
    now: number,
  ): Promise<boolean> {
    return subs.settleFirstRecord(this.db, id, status, failReason, now);
  }
  async cancelUnclaimedRecords(subscriptionId: string): Promise<BillingRecordRow[]> {
    return subs.cancelUnclaimedRecords(this.db, subscriptionId);
  }
  async claimDueRecords(
    ids: readonly string[],
    c: { owner: string; now: number; leaseUntil: number; channel: string },
  ): Promise<ClaimedRecord[]> {
    return renewals.claimDueRecords(this.db, ids, c);
  }
  async lockDueRecords(now: number, limit: number, cursor: DueCursor): Promise<DuePage> {
    return renewals.dueRecords(this.db, now, limit, cursor, { lock: true });
  }
  async releaseClaims(owner: string): Promise<number> {
    return renewals.releaseClaims(this.db, owner);
  }
  async settleRecord(
    id: string,
    status: 'SUCCESS' | 'FAILED',
    failReason: string | null,
    now: number,
  ): Promise<boolean> {
    return renewals.settleRecord(this.db, id, status, failReason, now);
  }
  finishRenewalTransaction(
    id: string,
    r: { approved: boolean; failReason: string | null; channelRef: string | null; now: number },
  ): Promise<void> {
    return this.later(renewals.finishRenewalTransaction(this.db, id, r));
  }
  async enqueueEvent(e: NewEvent): Promise<string | undefined> {
    return outbox.enqueueEvent(this.db, e);
  }
  async claimDueEvents(c: EventClaim): Promise<ClaimedEvent[]> {
    return delivery.claimDueEvents(this.db, c);
  }
  async finishAttempt(id: string, owner: string, o: AttemptOutcome): Promise<boolean> {
    return delivery.finishAttempt(this.db, id, owner, o);
  }
  async sweepUnaddressed(now: number, limit: number, error: string): Promise<number> {
    return delivery.sweepUnaddressed(this.db, now, limit, error);
  }
  async requeueEvent(id: string, now: number): Promise<boolean> {
    return outbox.requeueEvent(this.db, id, now);
  }
  async setMeta(key: string, value: string): Promise<void> {
    await vault.setMeta(this.db, key, value);
  }
  async claimMeta(key: string, value: string): Promise<string> {
    return vault.claimMeta(this.db, key, value);
  }
  async deleteMeta(key: string): Promise<void> {
    await vault.deleteMeta(this.db, key);
  }
  async updateSealed(col: SealedColumn, id: string, sealed: string): Promise<void> {
    await vault.updateSealed(this.db, col, id, sealed);
  }
  async upsertTracking(e: TrackingUpsert): Promise<void> {
    await tracking.upsertTracking(this.db, e);
  }
  async insertSandboxCharge(row: SandboxChargeRow): Promise<boolean> {
    return sandbox.insertSandboxCharge(this.db, row);
  }
  async getSandboxChargeByKey(idempotencyKey: string): Promise<SandboxChargeRow | undefined> {
    return sandbox.getSandboxChargeByKey(this.db, idempotencyKey);
  }
  async getSandboxCharge(id: string): Promise<SandboxChargeRow | undefined> {
    return sandbox.getSandboxCharge(this.db, id);
  }
  async finishSandboxAction(
    id: string,
    outcome: 'approved' | 'failed',
    declineCode: string | null,
    now: number,
  ): Promise<void> {
    await sandbox.finishSandboxAction(this.db, id, outcome, declineCode, now);
  }
  async sandboxRefunded(chargeId: string): Promise<number> {
    return sandbox.sandboxRefunded(this.db, chargeId);
  }
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

export class PgStore extends PgReads implements Store {
  constructor(readonly handle: PgHandle) {
    super(readConn(handle));
  }

  transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    return withTransaction(this.handle.pool, (t) => fn(new PgTx(t.conn)), { retryOnUniqueViolation: true });
  }

  settleZone(wanted: string | undefined): Promise<string> {
    return settleZone(this.handle.pool, wanted);
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
  async copyTo(target: string, onProgress?: (p: CopyProgress) => void): Promise<CopySummary> {
    // `db copy` only: the copy modules (and the other engine) are not loaded by any other command.
    const [{ copyInto }, { pgCopySource }] = await Promise.all([import('../copy.js'), import('./copy.js')]);
    return copyInto(await pgCopySource(this.handle.pool), target, onProgress);
  }

  operationalCounts(): Promise<OperationalCounts> {
    return operations.operationalCounts(this.db);
  }

  revenueFigures(q: RevenueQuery): Promise<RevenueMonthFigures[]> {
    return revenueFigures(this.db, q);
  }

  outboxBacklog(): Promise<number> {
    return operations.outboxBacklog(this.db);
  }

  holdsSealedData(): Promise<boolean> {
    return vault.holdsSealedData(this.db);
  }

  anySealedValue(): Promise<string | undefined> {
    return vault.anySealedValue(this.db);
  }

  countSealed(): Promise<number> {
    return vault.countSealed(this.db);
  }

  sealedBatch(col: SealedColumn, afterId: string, limit: number): Promise<SealedRow[]> {
    return vault.sealedBatch(this.db, col, afterId, limit);
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

  close(): Promise<void> {
    return this.handle.close();
  }
}

/** Open (migrating under an advisory lock if needed) the PostgreSQL database at `url`. */
export async function openPostgresStore(url: string, opts: OpenPgOptions = {}): Promise<PgStore> {
  return new PgStore(await openPgStore(url, opts));
}
