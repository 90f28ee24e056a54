import { rmSync } from 'node:fs';
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
  PlanSwitch,
  RecordPrice,
  OperationalCounts,
  OwnedId,
  PageWindow,
  SealedColumn,
  StripeCardIds,
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
} from '../store.js';
import * as cards from './cards.js';
import * as coupons from './coupons.js';
import { openSqlite, settleZone, type Sqlite } from './client.js';
import * as delivery from './delivery.js';
import { createPrivateFile } from './files.js';
import { keyPlainFingerprints } from './fingerprints.js';
import * as operations from './operations.js';
import { revenueFigures } from './report.js';
import * as lookup from './lookup.js';
import * as merchants from './merchants.js';
import * as outbox from './outbox.js';
import * as plans from './plans.js';
import * as refunds from './refunds.js';
import * as renewals from './renewals.js';
import * as sandbox from './sandbox.js';
import * as subs from './subscriptions.js';
import * as tracking from './tracking.js';
import * as vault from './vault.js';
import * as txns from './transactions.js';
import { createWriter } from './writer.js';

/**
 * The SQLite engine behind the store boundary. Two connections to one WAL file:
 *  - the writer connection runs every unit of work, group-committed (writer.ts);
 *  - a read-only connection answers `Store` reads. In WAL mode it sees the last COMMIT, never a
 *    batch the writer has open — which matters because a batch's calls are awaited one by one,
 *    so other requests' code runs (in microtasks) while the batch is between BEGIN and COMMIT.
 * The repositories are synchronous functions over a connection; the methods here only wrap
 * them in promises.
 */
class SqliteReads implements Reads {
  constructor(protected readonly db: Sqlite) {}

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
  async inFlightChargeIds(before: number, limit: number): Promise<string[]> {
    return txns.inFlightChargeIds(this.db, before, limit);
  }
  async getTransactionByChannelRef(merchantId: string, channelRef: string): Promise<TransactionRow | undefined> {
    return txns.getByChannelRef(this.db, merchantId, channelRef);
  }
  async getRefundByChannelRef(merchantId: string, channelRef: string): Promise<RefundRow | undefined> {
    return refunds.getRefundByChannelRef(this.db, merchantId, channelRef);
  }
  async stalePageIds(now: number, limit: number): Promise<string[]> {
    return txns.stalePageIds(this.db, now, limit);
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

/** One instance per writer connection, handed to every unit of work (BEGIN IMMEDIATE already serialises writers). */
class SqliteTx extends SqliteReads implements Tx {
  async lockTransaction(id: string): Promise<TransactionRow | undefined> {
    return txns.getTransaction(this.db, id);
  }
  async lockSubscription(merchantId: string, id: string): Promise<SubscriptionRow | undefined> {
    return subs.getSubscription(this.db, merchantId, id);
  }
  async insertMerchant(row: MerchantRow): Promise<void> {
    merchants.insertMerchant(this.db, row);
  }
  async updateMerchant(id: string, patch: Partial<Omit<MerchantRow, 'id'>>): Promise<void> {
    merchants.updateMerchantRow(this.db, id, patch);
  }
  async insertPlan(row: PlanRow): Promise<void> {
    plans.insertPlan(this.db, row);
  }
  async setPlanStatus(id: string, status: 'ACTIVE' | 'INACTIVE'): Promise<void> {
    plans.setPlanStatus(this.db, id, status);
  }
  async reservePlanSlot(planId: string): Promise<boolean> {
    return plans.reservePlanSlot(this.db, planId);
  }
  async releasePlanSlot(planId: string): Promise<void> {
    plans.releasePlanSlot(this.db, planId);
  }
  async insertCoupon(row: CouponRow): Promise<void> {
    coupons.insertCoupon(this.db, row);
  }
  async setCouponStatus(id: string, status: 'ACTIVE' | 'INACTIVE'): Promise<void> {
    coupons.setCouponStatus(this.db, id, status);
  }
  async reserveCouponRedemption(id: string, now: number): Promise<boolean> {
    return coupons.reserveCouponRedemption(this.db, id, now);
  }
  async insertTransaction(row: TransactionRow): Promise<void> {
    txns.insertTransaction(this.db, row);
  }
  async insertIdempotency(row: NewIdempotency): Promise<void> {
    txns.insertIdempotency(this.db, row);
  }
  async updateTransactionIf(
    id: string,
    fromStatus: number,
    patch: Partial<Omit<TransactionRow, 'id'>>,
  ): Promise<boolean> {
    return txns.updateTransactionIf(this.db, id, fromStatus, patch);
  }
  async claimCharge(id: string, now: number, leaseMs: number): Promise<boolean> {
    return txns.claimCharge(this.db, id, now, leaseMs);
  }
  async releaseCharge(id: string, now: number, leaseMs: number): Promise<void> {
    txns.releaseCharge(this.db, id, now, leaseMs);
  }
  async holdPage(id: string, openStatus: number, now: number, until: number): Promise<boolean> {
    return txns.holdPage(this.db, id, openStatus, now, until);
  }
  async closeOpenCharge(id: string, status: number, now: number): Promise<boolean> {
    return txns.closeOpenCharge(this.db, id, status, now);
  }
  async insertRefund(row: RefundRow): Promise<void> {
    refunds.insertRefund(this.db, row);
  }
  async reserveRefund(txnId: string, amount: number, now: number): Promise<boolean> {
    return refunds.reserveRefund(this.db, txnId, amount, now);
  }
  async noteRefundRef(id: string, channelRef: string): Promise<void> {
    refunds.noteRefundRef(this.db, id, channelRef);
  }
  async discardRefusedRefund(id: string): Promise<boolean> {
    return refunds.discardRefusedRefund(this.db, id);
  }
  async settleRefund(id: string, outcome: RefundOutcome): Promise<boolean> {
    return refunds.settleRefund(this.db, id, outcome);
  }
  async settleReservation(txnId: string, amount: number, refunded: boolean, now: number): Promise<void> {
    refunds.settleReservation(this.db, txnId, amount, refunded, now);
  }
  async discardUncharged(id: string): Promise<boolean> {
    return txns.discardUncharged(this.db, id);
  }
  async insertCard(row: CardRow): Promise<void> {
    cards.insertCard(this.db, row);
  }
  async setStripeCard(id: string, card: StripeCardIds): Promise<void> {
    cards.setStripeCard(this.db, id, card);
  }
  async deleteCard(id: string): Promise<void> {
    cards.deleteCard(this.db, id);
  }
  async insertSubscription(row: SubscriptionRow): Promise<void> {
    subs.insertSubscription(this.db, row);
  }
  async setSubscriptionStatus(id: string, patch: SubscriptionStatusPatch): Promise<void> {
    subs.setSubscriptionStatus(this.db, id, patch);
  }
  async activateSubscription(id: string, a: { paidThrough: number; amount: number; now: number }): Promise<boolean> {
    return subs.activateSubscription(this.db, id, a);
  }
  async expireSubscription(id: string, now: number): Promise<boolean> {
    return subs.expireSubscription(this.db, id, now);
  }
  async addChargeToSubscription(
    id: string,
    c: { approved: boolean; amount: number; paidThrough: number | null; now: number },
  ): Promise<void> {
    renewals.addChargeToSubscription(this.db, id, c);
  }
  async insertBillingRecord(row: BillingRecordRow): Promise<void> {
    subs.insertBillingRecord(this.db, row);
  }
  async setSubscriptionCard(id: string, cardId: string, now: number): Promise<void> {
    subs.setSubscriptionCard(this.db, id, cardId, now);
  }

  async setCardUpdateToken(id: string, token: string | null, expiresAt: number | null): Promise<void> {
    subs.setCardUpdateToken(this.db, id, token, expiresAt);
  }

  async rescheduleRecord(id: string, scheduledTime: number): Promise<boolean> {
    return subs.rescheduleRecord(this.db, id, scheduledTime);
  }

  async applyPlanChange(id: string, c: PlanSwitch): Promise<void> {
    subs.applyPlanChange(this.db, id, c);
  }

  async setPendingPlan(id: string, planId: string | null, now: number): Promise<void> {
    subs.setPendingPlan(this.db, id, planId, now);
  }

  async spendCredit(id: string, amount: number, now: number): Promise<void> {
    subs.spendCredit(this.db, id, amount, now);
  }

  async repriceRecord(id: string, p: RecordPrice): Promise<boolean> {
    return subs.repriceRecord(this.db, id, p);
  }

  async insertPendingRecord(r: NewRecord): Promise<string> {
    return subs.insertPendingRecord(this.db, r);
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
    return renewals.dueRecords(this.db, now, limit, cursor);
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
  async finishRenewalTransaction(
    id: string,
    r: { approved: boolean; failReason: string | null; channelRef: string | null; now: number },
  ): Promise<void> {
    renewals.finishRenewalTransaction(this.db, id, r);
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
    vault.setMeta(this.db, key, value);
  }
  async claimMeta(key: string, value: string): Promise<string> {
    return vault.claimMeta(this.db, key, value);
  }
  async deleteMeta(key: string): Promise<void> {
    vault.deleteMeta(this.db, key);
  }
  async updateSealed(col: SealedColumn, id: string, sealed: string): Promise<void> {
    vault.updateSealed(this.db, col, id, sealed);
  }
  async upsertTracking(e: TrackingUpsert): Promise<void> {
    tracking.upsertTracking(this.db, e);
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
    sandbox.finishSandboxAction(this.db, id, outcome, declineCode, now);
  }
  async sandboxRefunded(chargeId: string): Promise<number> {
    return sandbox.sandboxRefunded(this.db, chargeId);
  }
}

export class SqliteStore extends SqliteReads implements Store {
  private readonly writer;

  constructor(
    /** The writer connection. Tests reach it through `sqliteOf` to inspect rows; nothing in src/ does. */
    readonly connection: Sqlite,
    reader: Sqlite,
  ) {
    super(reader);
    this.writer = createWriter<Tx>(connection, new SqliteTx(connection));
  }

  transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    return this.writer.transaction(fn);
  }

  async settleZone(wanted: string | undefined): Promise<string> {
    return settleZone(this.connection, wanted);
  }

  async backup(file: string): Promise<{ pages: number }> {
    // The copy is as sensitive as the database: 0600 before the first page is written into it.
    if (!createPrivateFile(file)) throw new Error(`${file} already exists`);
    try {
      const result = await this.connection.backup(file);
      return { pages: result.totalPages };
    } catch (e) {
      rmSync(file, { force: true });
      throw e;
    }
  }

  async copyTo(target: string, onProgress?: (p: CopyProgress) => void): Promise<CopySummary> {
    // The read-only connection holds the snapshot (the writer, for ':memory:', which has one).
    // `db copy` only: the copy modules (and the other engine) are not loaded by any other command.
    const [{ copyInto }, { sqliteCopySource }] = await Promise.all([import('../copy.js'), import('./copy.js')]);
    return copyInto(sqliteCopySource(this.db), target, onProgress);
  }

  async keyPlainFingerprints(opts: RekeyOptions): Promise<number> {
    return keyPlainFingerprints(this.connection, opts);
  }

  async operationalCounts(): Promise<OperationalCounts> {
    return operations.operationalCounts(this.db);
  }

  async outboxBacklog(): Promise<number> {
    return operations.outboxBacklog(this.db);
  }

  async revenueFigures(q: RevenueQuery): Promise<RevenueMonthFigures[]> {
    return revenueFigures(this.db, q);
  }

  async holdsSealedData(): Promise<boolean> {
    return vault.holdsSealedData(this.db);
  }

  async anySealedValue(): Promise<string | undefined> {
    return vault.anySealedValue(this.db);
  }

  async countSealed(): Promise<number> {
    return vault.countSealed(this.db);
  }

  async sealedBatch(col: SealedColumn, afterId: string, limit: number): Promise<SealedRow[]> {
    return vault.sealedBatch(this.db, col, afterId, limit);
  }

  async compact(): Promise<void> {
    vault.compact(this.connection);
  }

  async close(): Promise<void> {
    if (this.db !== this.connection) this.db.close();
    this.connection.close();
  }
}

/** Open (creating and migrating if needed) a SQLite database file. */
export function openSqliteStore(path: string): SqliteStore {
  const writer = openSqlite(path);
  // A second connection to ':memory:' would be another, empty database: one connection serves
  // both (such a database lives in one process, used by nothing concurrent in practice).
  if (path === ':memory:') return new SqliteStore(writer, writer);
  try {
    return new SqliteStore(writer, openSqlite(path, { readonly: true }));
  } catch (e) {
    writer.close();
    throw e;
  }
}
