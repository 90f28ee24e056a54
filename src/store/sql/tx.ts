import type {
  AttemptOutcome,
  BillingRecordRow,
  CardRow,
  ClaimedEmail,
  ClaimedEvent,
  CouponRow,
  DueCursor,
  DuePage,
  EmailClaim,
  EmailOutcome,
  EventClaim,
  PortalSessionRow,
  MerchantRow,
  NewCreditNote,
  NewCustomerEmail,
  NewEvent,
  NewIdempotency,
  NewInvoice,
  NewRecord,
  PlanRow,
  PlanSwitch,
  RecordPrice,
  SubscriptionCoupon,
  RefundOutcome,
  RefundRow,
  SandboxChargeRow,
  SealedColumn,
  StripeCardIds,
  SubscriptionRow,
  SubscriptionStatusPatch,
  TrackingUpsert,
  TransactionRow,
  Tx,
} from '../store.js';
import type { SequenceColumn, TakenNumber } from '../sequence-sql.js';
import * as cards from './cards.js';
import * as coupons from './coupons.js';
import * as emails from './customer-emails.js';
import * as portal from './portal.js';
import type { Db } from './db.js';
import * as documents from './documents.js';
import * as merchants from './merchants.js';
import * as outbox from './outbox.js';
import * as plans from './plans.js';
import { SqlReads } from './reads.js';
import * as records from './records.js';
import * as refunds from './refunds.js';
import * as sandbox from './sandbox.js';
import * as subs from './subscriptions.js';
import * as tracking from './tracking.js';
import * as txns from './transactions.js';
import * as vault from './vault.js';

/**
 * What each engine does its own way inside a unit of work, on purpose: the renewal run's claims
 * (PostgreSQL: SKIP LOCKED and one statement per batch, with the RENEWAL transactions in a
 * second; SQLite: its writer runs alone, and claims record by record without RETURNING).
 */
export type EngineTx = Pick<Tx, 'claimDueRecords'>;

/** A unit of work's repository for both engines (see Store's unit-of-work contract). */
export class SqlTx extends SqlReads implements Tx {
  constructor(
    sql: Db,
    private readonly engine: EngineTx,
  ) {
    super(sql);
  }

  /**
   * A write whose answer the unit of work does not use. Awaited here; PostgreSQL sends it at once
   * and collects its answer with the next statement's or COMMIT's (one round trip fewer).
   */
  protected later(write: Promise<unknown>): Promise<void> {
    return write.then(() => undefined);
  }

  lockTransaction(id: string): Promise<TransactionRow | undefined> {
    return txns.lockTransaction(this.sql, id);
  }
  lockSubscription(merchantId: string, id: string): Promise<SubscriptionRow | undefined> {
    return subs.lockSubscription(this.sql, merchantId, id);
  }
  insertMerchant(row: MerchantRow): Promise<void> {
    return merchants.insertMerchant(this.sql, row);
  }
  updateMerchant(id: string, patch: Partial<Omit<MerchantRow, 'id'>>): Promise<void> {
    return merchants.updateMerchantRow(this.sql, id, patch);
  }
  insertPortalSession(row: PortalSessionRow): Promise<void> {
    return portal.insertPortalSession(this.sql, row);
  }
  deletePortalSessionsBefore(cutoff: number): Promise<void> {
    return portal.deletePortalSessionsBefore(this.sql, cutoff);
  }
  countPortalCardCheck(tokenHash: string, max: number): Promise<boolean> {
    return portal.countPortalCardCheck(this.sql, tokenHash, max);
  }
  insertCoupon(row: CouponRow): Promise<void> {
    return coupons.insertCoupon(this.sql, row);
  }
  setCouponStatus(id: string, status: 'ACTIVE' | 'INACTIVE'): Promise<void> {
    return coupons.setCouponStatus(this.sql, id, status);
  }
  reserveCouponRedemption(id: string, now: number): Promise<boolean> {
    return coupons.reserveCouponRedemption(this.sql, id, now);
  }
  releaseCouponRedemption(id: string): Promise<void> {
    return coupons.releaseCouponRedemption(this.sql, id);
  }
  moveDocumentSequence(merchantId: string, which: SequenceColumn, requested: number): Promise<number | undefined> {
    return merchants.moveDocumentSequence(this.sql, merchantId, which, requested);
  }
  takeDocumentNumber(merchantId: string, which: SequenceColumn): Promise<TakenNumber | undefined> {
    return merchants.takeDocumentNumber(this.sql, merchantId, which);
  }
  issueInvoice(inv: NewInvoice): Promise<string | undefined> {
    return documents.issueInvoice(this.sql, inv);
  }
  issueCreditNote(cn: NewCreditNote): Promise<string | undefined> {
    return documents.issueCreditNote(this.sql, cn);
  }
  giveCreditNoteToken(id: string, token: string): Promise<boolean> {
    return documents.giveCreditNoteToken(this.sql, id, token);
  }
  insertPlan(row: PlanRow): Promise<void> {
    return plans.insertPlan(this.sql, row);
  }
  setPlanStatus(id: string, status: 'ACTIVE' | 'INACTIVE'): Promise<void> {
    return plans.setPlanStatus(this.sql, id, status);
  }
  reservePlanSlot(planId: string): Promise<boolean> {
    return plans.reservePlanSlot(this.sql, planId);
  }
  releasePlanSlot(planId: string): Promise<void> {
    return plans.releasePlanSlot(this.sql, planId);
  }
  insertTransaction(row: TransactionRow): Promise<void> {
    return this.later(txns.insertTransaction(this.sql, row));
  }
  insertIdempotency(row: NewIdempotency): Promise<void> {
    return this.later(txns.insertIdempotency(this.sql, row));
  }
  async updateTransactionIf(
    id: string,
    fromStatus: number,
    patch: Partial<Omit<TransactionRow, 'id'>>,
  ): Promise<boolean> {
    const r = await txns.updateTransactionIf(this.sql, id, fromStatus, patch);
    if (r.row) this.changedTransaction(r.row);
    return r.updated;
  }
  /** The row as a conditional update returned it (PostgreSQL keeps it for the read that follows). */
  protected changedTransaction(_row: TransactionRow): void {}
  claimCharge(id: string, now: number, leaseMs: number): Promise<boolean> {
    return txns.claimCharge(this.sql, id, now, leaseMs);
  }
  releaseCharge(id: string, now: number, leaseMs: number): Promise<void> {
    return txns.releaseCharge(this.sql, id, now, leaseMs);
  }
  holdPage(id: string, openStatus: number, now: number, until: number): Promise<boolean> {
    return txns.holdPage(this.sql, id, openStatus, now, until);
  }
  closeOpenCharge(id: string, status: number, now: number): Promise<boolean> {
    return txns.closeOpenCharge(this.sql, id, status, now);
  }
  discardUncharged(id: string): Promise<boolean> {
    return txns.discardUncharged(this.sql, id);
  }
  insertRefund(row: RefundRow): Promise<void> {
    return refunds.insertRefund(this.sql, row);
  }
  reserveRefund(txnId: string, amount: number, now: number): Promise<boolean> {
    return refunds.reserveRefund(this.sql, txnId, amount, now);
  }
  noteRefundRef(id: string, channelRef: string): Promise<void> {
    return refunds.noteRefundRef(this.sql, id, channelRef);
  }
  discardRefusedRefund(id: string): Promise<boolean> {
    return refunds.discardRefusedRefund(this.sql, id);
  }
  settleRefund(id: string, outcome: RefundOutcome): Promise<boolean> {
    return refunds.settleRefund(this.sql, id, outcome);
  }
  settleReservation(txnId: string, amount: number, refunded: boolean, now: number): Promise<void> {
    return refunds.settleReservation(this.sql, txnId, amount, refunded, now);
  }
  insertCard(row: CardRow): Promise<void> {
    return cards.insertCard(this.sql, row);
  }
  setStripeCard(id: string, card: StripeCardIds): Promise<void> {
    return cards.setStripeCard(this.sql, id, card);
  }
  deleteCard(id: string): Promise<void> {
    return cards.deleteCard(this.sql, id);
  }
  insertSubscription(row: SubscriptionRow): Promise<void> {
    return subs.insertSubscription(this.sql, row);
  }
  setSubscriptionStatus(id: string, patch: SubscriptionStatusPatch): Promise<void> {
    return subs.setSubscriptionStatus(this.sql, id, patch);
  }
  activateSubscription(id: string, a: { paidThrough: number; amount: number; now: number }): Promise<boolean> {
    return subs.activateSubscription(this.sql, id, a);
  }
  expireSubscription(id: string, now: number): Promise<boolean> {
    return subs.expireSubscription(this.sql, id, now);
  }
  insertBillingRecord(row: BillingRecordRow): Promise<void> {
    return records.insertBillingRecord(this.sql, row);
  }
  setSubscriptionCard(id: string, cardId: string, now: number): Promise<void> {
    return subs.setSubscriptionCard(this.sql, id, cardId, now);
  }
  setCardUpdateToken(id: string, token: string | null, expiresAt: number | null): Promise<void> {
    return subs.setCardUpdateToken(this.sql, id, token, expiresAt);
  }
  countCardLinkCheck(id: string): Promise<void> {
    return subs.countCardLinkCheck(this.sql, id);
  }
  rescheduleRecord(id: string, scheduledTime: number): Promise<boolean> {
    return records.rescheduleRecord(this.sql, id, scheduledTime);
  }
  applyPlanChange(id: string, c: PlanSwitch): Promise<void> {
    return subs.applyPlanChange(this.sql, id, c);
  }
  setPendingPlan(id: string, planId: string | null, now: number): Promise<void> {
    return subs.setPendingPlan(this.sql, id, planId, now);
  }
  spendCredit(id: string, amount: number, now: number): Promise<void> {
    return subs.spendCredit(this.sql, id, amount, now);
  }
  setSubscriptionCoupon(id: string, c: SubscriptionCoupon, now: number): Promise<void> {
    return subs.setSubscriptionCoupon(this.sql, id, c, now);
  }
  setCouponCyclesUsed(id: string, cyclesUsed: number, now: number): Promise<void> {
    return subs.setCouponCyclesUsed(this.sql, id, cyclesUsed, now);
  }
  repriceRecord(id: string, p: RecordPrice): Promise<boolean> {
    return records.repriceRecord(this.sql, id, p);
  }
  async insertPendingRecord(r: NewRecord): Promise<string> {
    const { id, write } = subs.sendPendingRecord(this.sql, r);
    await this.later(write);
    return id;
  }
  settleFirstRecord(
    id: string,
    status: 'SUCCESS' | 'FAILED',
    failReason: string | null,
    now: number,
  ): Promise<boolean> {
    return records.settleFirstRecord(this.sql, id, status, failReason, now);
  }
  /** Record a claimed renewal record's outcome; false when another run recorded it first. */
  settleRecord(id: string, status: 'SUCCESS' | 'FAILED', failReason: string | null, now: number): Promise<boolean> {
    return records.settleFirstRecord(this.sql, id, status, failReason, now, 'release');
  }
  enqueueEvent(e: NewEvent): Promise<string | undefined> {
    return outbox.enqueueEvent(this.sql, e);
  }
  requeueEvent(id: string, now: number): Promise<boolean> {
    return outbox.requeueEvent(this.sql, id, now);
  }
  enqueueEmail(e: NewCustomerEmail): Promise<string | undefined> {
    return emails.enqueueEmail(this.sql, e);
  }
  claimDueEmails(c: EmailClaim): Promise<ClaimedEmail[]> {
    return emails.claimDueEmails(this.sql, c);
  }
  finishEmailAttempt(id: string, owner: string, o: EmailOutcome): Promise<boolean> {
    return emails.finishEmailAttempt(this.sql, id, owner, o);
  }
  requeueEmail(id: string, now: number): Promise<boolean> {
    return emails.requeueEmail(this.sql, id, now);
  }
  setSubscriptionEmail(id: string, email: string | null, now: number): Promise<void> {
    return emails.setSubscriptionEmail(this.sql, id, email, now);
  }
  setMeta(key: string, value: string): Promise<void> {
    return vault.setMeta(this.sql, key, value);
  }
  claimMeta(key: string, value: string): Promise<string> {
    return vault.claimMeta(this.sql, key, value);
  }
  deleteMeta(key: string): Promise<void> {
    return vault.deleteMeta(this.sql, key);
  }
  updateSealed(col: SealedColumn, id: string, sealed: string): Promise<void> {
    return vault.updateSealed(this.sql, col, id, sealed);
  }
  upsertTracking(e: TrackingUpsert): Promise<void> {
    return tracking.upsertTracking(this.sql, e);
  }
  insertSandboxCharge(row: SandboxChargeRow): Promise<boolean> {
    return sandbox.insertSandboxCharge(this.sql, row);
  }
  getSandboxChargeByKey(idempotencyKey: string): Promise<SandboxChargeRow | undefined> {
    return sandbox.getSandboxChargeByKey(this.sql, idempotencyKey);
  }
  getSandboxCharge(id: string): Promise<SandboxChargeRow | undefined> {
    return sandbox.getSandboxCharge(this.sql, id);
  }
  finishSandboxAction(id: string, outcome: 'approved' | 'failed', declineCode: string | null, now: number) {
    return sandbox.finishSandboxAction(this.sql, id, outcome, declineCode, now);
  }
  sandboxRefunded(chargeId: string): Promise<number> {
    return sandbox.sandboxRefunded(this.sql, chargeId);
  }
  lockDueRecords(now: number, limit: number, cursor: DueCursor): Promise<DuePage> {
    return records.dueRecords(this.sql, now, limit, cursor, { lock: true });
  }

  releaseClaims(owner: string): Promise<number> {
    return records.releaseClaims(this.sql, owner);
  }
  finishRenewalTransaction(
    id: string,
    r: { approved: boolean; failReason: string | null; channelRef: string | null; now: number },
  ): Promise<void> {
    return txns.finishRenewalTransaction(this.sql, id, r);
  }
  addChargeToSubscription(
    id: string,
    c: { approved: boolean; amount: number; paidThrough: number | null; now: number },
  ): Promise<void> {
    return subs.addChargeToSubscription(this.sql, id, c);
  }
  finishAttempt(id: string, owner: string, o: AttemptOutcome): Promise<boolean> {
    return outbox.finishAttempt(this.sql, id, owner, o);
  }
  sweepUnaddressed(now: number, limit: number, error: string): Promise<number> {
    return outbox.sweepUnaddressed(this.sql, now, limit, error);
  }

  cancelUnclaimedRecords(subscriptionId: string): Promise<BillingRecordRow[]> {
    return records.cancelUnclaimedRecords(this.sql, subscriptionId);
  }
  claimDueEvents(c: EventClaim): Promise<ClaimedEvent[]> {
    return outbox.claimDueEvents(this.sql, c);
  }

  /** The engine's own (see EngineTx). */
  claimDueRecords: EngineTx['claimDueRecords'] = (ids, c) => this.engine.claimDueRecords(ids, c);
}
