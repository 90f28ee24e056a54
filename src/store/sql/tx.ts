import type {
  DueCursor,
  DuePage,
  NewCustomerEmail,
  NewEvent,
  NewIdempotency,
  NewInvoice,
  NewRecord,
  SandboxChargeRow,
  TransactionRow,
  Tx,
} from '../store.js';
import * as cards from './cards.js';
import * as coupons from './coupons.js';
import * as emails from './customer-emails.js';
import * as portal from './portal.js';
import { bindStatements, type Bound } from './bind.js';
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

/** The `Tx` methods that are a statement of this folder and nothing more (bind.ts). */
const txStatements = {
  lockTransaction: txns.lockTransaction,
  lockSubscription: subs.lockSubscription,
  insertMerchant: merchants.insertMerchant,
  updateMerchant: merchants.updateMerchantRow,
  insertPortalSession: portal.insertPortalSession,
  deletePortalSessionsBefore: portal.deletePortalSessionsBefore,
  countPortalCardCheck: portal.countPortalCardCheck,
  insertCoupon: coupons.insertCoupon,
  setCouponStatus: coupons.setCouponStatus,
  reserveCouponRedemption: coupons.reserveCouponRedemption,
  releaseCouponRedemption: coupons.releaseCouponRedemption,
  moveDocumentSequence: merchants.moveDocumentSequence,
  takeDocumentNumber: merchants.takeDocumentNumber,
  issueCreditNote: documents.issueCreditNote,
  giveCreditNoteToken: documents.giveCreditNoteToken,
  insertPlan: plans.insertPlan,
  setPlanStatus: plans.setPlanStatus,
  reservePlanSlot: plans.reservePlanSlot,
  releasePlanSlot: plans.releasePlanSlot,
  claimCharge: txns.claimCharge,
  releaseCharge: txns.releaseCharge,
  holdPage: txns.holdPage,
  closeOpenCharge: txns.closeOpenCharge,
  discardUncharged: txns.discardUncharged,
  insertRefund: refunds.insertRefund,
  reserveRefund: refunds.reserveRefund,
  noteRefundRef: refunds.noteRefundRef,
  discardRefusedRefund: refunds.discardRefusedRefund,
  settleRefund: refunds.settleRefund,
  settleReservation: refunds.settleReservation,
  insertCard: cards.insertCard,
  setStripeCard: cards.setStripeCard,
  deleteCard: cards.deleteCard,
  insertSubscription: subs.insertSubscription,
  setSubscriptionStatus: subs.setSubscriptionStatus,
  activateSubscription: subs.activateSubscription,
  expireSubscription: subs.expireSubscription,
  insertBillingRecord: records.insertBillingRecord,
  setSubscriptionCard: subs.setSubscriptionCard,
  setCardUpdateToken: subs.setCardUpdateToken,
  countCardLinkCheck: subs.countCardLinkCheck,
  rescheduleRecord: records.rescheduleRecord,
  applyPlanChange: subs.applyPlanChange,
  setPendingPlan: subs.setPendingPlan,
  spendCredit: subs.spendCredit,
  setSubscriptionCoupon: subs.setSubscriptionCoupon,
  setCouponCyclesUsed: subs.setCouponCyclesUsed,
  repriceRecord: records.repriceRecord,
  settleFirstRecord: records.settleFirstRecord,
  requeueEvent: outbox.requeueEvent,
  claimDueEmails: emails.claimDueEmails,
  finishEmailAttempt: emails.finishEmailAttempt,
  requeueEmail: emails.requeueEmail,
  setSubscriptionEmail: emails.setSubscriptionEmail,
  setMeta: vault.setMeta,
  claimMeta: vault.claimMeta,
  deleteMeta: vault.deleteMeta,
  updateSealed: vault.updateSealed,
  upsertTracking: tracking.upsertTracking,
  getSandboxChargeByKey: sandbox.getSandboxChargeByKey,
  getSandboxCharge: sandbox.getSandboxCharge,
  finishSandboxAction: sandbox.finishSandboxAction,
  sandboxRefunded: sandbox.sandboxRefunded,
  releaseClaims: records.releaseClaims,
  finishAttempt: outbox.finishAttempt,
  sweepUnaddressed: outbox.sweepUnaddressed,
  cancelUnclaimedRecords: records.cancelUnclaimedRecords,
  claimDueEvents: outbox.claimDueEvents,
};

// A class and an interface of one name: the interface declares the methods bindStatements gives
// the class at the end of this module.
export interface SqlTx extends Bound<typeof txStatements> {}

/**
 * A unit of work's repository for both engines (see Store's unit-of-work contract). The methods
 * written out here add to their statement, or are the ones an engine overrides.
 */
// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: see the interface above
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
  async insertPendingRecord(r: NewRecord): Promise<string> {
    const { id, write } = subs.sendPendingRecord(this.sql, r);
    await this.later(write);
    return id;
  }
  /** Record a claimed renewal record's outcome; false when another run recorded it first. */
  settleRecord(
    id: string,
    status: 'SUCCESS' | 'FAILED' | 'CANCELLED',
    failReason: string | null,
    now: number,
  ): Promise<boolean> {
    return records.settleFirstRecord(this.sql, id, status, failReason, now, 'release');
  }
  lockDueRecords(now: number, limit: number, cursor: DueCursor): Promise<DuePage> {
    return records.dueRecords(this.sql, now, limit, cursor, { lock: true });
  }

  // Statements PostgreSQL's PgTx does its own way (postgres/store.ts), so written out here.
  issueInvoice(inv: NewInvoice): Promise<string | undefined> {
    return documents.issueInvoice(this.sql, inv);
  }
  enqueueEvent(e: NewEvent): Promise<string | undefined> {
    return outbox.enqueueEvent(this.sql, e);
  }
  enqueueEmail(e: NewCustomerEmail): Promise<string | undefined> {
    return emails.enqueueEmail(this.sql, e);
  }
  insertSandboxCharge(row: SandboxChargeRow): Promise<boolean> {
    return sandbox.insertSandboxCharge(this.sql, row);
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

  /** The engine's own (see EngineTx). */
  claimDueRecords: EngineTx['claimDueRecords'] = (ids, c) => this.engine.claimDueRecords(ids, c);
}

bindStatements(SqlTx, txStatements);
