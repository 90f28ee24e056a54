import type {
  BillingRecordRow,
  CardRow,
  CouponRow,
  PortalSessionRow,
  CreditNoteRow,
  CustomerEmailRow,
  DocumentFilter,
  DueCursor,
  DuePage,
  EventFilter,
  EmailFilter,
  EventRow,
  ExpiringCard,
  ExpiringCardQuery,
  IdempotencyRow,
  IdempotencyScope,
  InvoiceRow,
  MerchantRow,
  OperationalCounts,
  OwnedId,
  PageWindow,
  PlanRow,
  Reads,
  RecordStatus,
  RefundRow,
  SealedColumn,
  SealedRow,
  SubscriptionFilter,
  SubscriptionListRow,
  SubscriptionRow,
  TrackingRow,
  TransactionFilter,
  TransactionRow,
  UnrecordedCharge,
  RevenueMonthFigures,
  RevenueQuery,
} from '../store.js';
import * as cards from './cards.js';
import * as coupons from './coupons.js';
import * as emails from './customer-emails.js';
import * as portal from './portal.js';
import type { Db } from './db.js';
import * as documents from './documents.js';
import * as lookup from './lookup.js';
import * as merchants from './merchants.js';
import * as operations from './operations.js';
import * as outbox from './outbox.js';
import * as plans from './plans.js';
import * as records from './records.js';
import * as refunds from './refunds.js';
import * as report from './report.js';
import * as subs from './subscriptions.js';
import * as tracking from './tracking.js';
import * as txns from './transactions.js';
import * as vault from './vault.js';

type Owned = { merchantId?: string | undefined } & PageWindow;

/**
 * `Reads` for both engines: the shared statements of store/sql/ over one connection (or pool),
 * the renewal run's due list included. `Store` reads see the last commit; a unit of work's
 * (tx.ts) see its own writes.
 */
export class SqlReads implements Reads {
  constructor(protected readonly sql: Db) {}

  getMerchant(id: string): Promise<MerchantRow | undefined> {
    return merchants.getMerchant(this.sql, id);
  }
  getMerchantByApiKey(apiKey: string): Promise<MerchantRow | undefined> {
    return merchants.getMerchantByApiKey(this.sql, apiKey);
  }
  listMerchants(): Promise<MerchantRow[]> {
    return merchants.listMerchantRows(this.sql);
  }
  anyStripeMerchant(): Promise<boolean> {
    return merchants.anyStripeMerchant(this.sql);
  }
  getPlan(merchantId: string, id: string): Promise<PlanRow | undefined> {
    return plans.getPlan(this.sql, merchantId, id);
  }
  listPlans(merchantId: string, status?: 'ACTIVE' | 'INACTIVE'): Promise<PlanRow[]> {
    return plans.listPlanRows(this.sql, merchantId, status);
  }
  getPlanInfo(planId: string): Promise<{ name: string; description: string | null } | undefined> {
    return plans.getPlanInfo(this.sql, planId);
  }
  getTransaction(id: string): Promise<TransactionRow | undefined> {
    return txns.getTransaction(this.sql, id);
  }
  getMerchantTransaction(merchantId: string, id: string): Promise<TransactionRow | undefined> {
    return txns.getMerchantTransaction(this.sql, merchantId, id);
  }
  getTransactionByRelation(merchantId: string, relationId: string): Promise<TransactionRow | undefined> {
    return txns.getByRelation(this.sql, merchantId, relationId);
  }
  getTransactionByPageToken(token: string): Promise<TransactionRow | undefined> {
    return txns.getByPageToken(this.sql, token);
  }
  listTransactions(f: TransactionFilter): Promise<TransactionRow[]> {
    return txns.listTransactionRows(this.sql, f);
  }
  stalePageIds(now: number, limit: number): Promise<string[]> {
    return txns.stalePageIds(this.sql, now, limit);
  }
  getPortalSession(tokenHash: string): Promise<PortalSessionRow | undefined> {
    return portal.getPortalSession(this.sql, tokenHash);
  }
  getCoupon(merchantId: string, code: string): Promise<CouponRow | undefined> {
    return coupons.getCoupon(this.sql, merchantId, code);
  }
  listCoupons(merchantId: string): Promise<CouponRow[]> {
    return coupons.listCoupons(this.sql, merchantId);
  }
  inFlightChargeIds(before: number, limit: number): Promise<string[]> {
    return txns.inFlightChargeIds(this.sql, before, limit);
  }
  unrecordedCharges(before: number, after: UnrecordedCharge, limit: number): Promise<UnrecordedCharge[]> {
    return txns.unrecordedCharges(this.sql, before, after, limit);
  }
  getTransactionByChannelRef(merchantId: string, channelRef: string): Promise<TransactionRow | undefined> {
    return txns.getByChannelRef(this.sql, merchantId, channelRef);
  }
  getRefundByChannelRef(merchantId: string, channelRef: string): Promise<RefundRow | undefined> {
    return refunds.getRefundByChannelRef(this.sql, merchantId, channelRef);
  }
  getIdempotency(merchantId: string, scope: IdempotencyScope, requestId: string): Promise<IdempotencyRow | undefined> {
    return txns.getIdempotency(this.sql, merchantId, scope, requestId);
  }
  getRefund(id: string): Promise<RefundRow | undefined> {
    return refunds.getRefund(this.sql, id);
  }
  stalePendingRefundIds(before: number, limit: number): Promise<string[]> {
    return refunds.stalePendingRefundIds(this.sql, before, limit);
  }
  getSubscription(merchantId: string, id: string): Promise<SubscriptionRow | undefined> {
    return subs.getSubscription(this.sql, merchantId, id);
  }
  getSubscriptionById(id: string): Promise<SubscriptionRow | undefined> {
    return subs.getSubscriptionById(this.sql, id);
  }
  getSubscriptionByCode(merchantId: string, code: string): Promise<SubscriptionRow | undefined> {
    return subs.getSubscriptionByCode(this.sql, merchantId, code);
  }
  findSubscriptionId(ref: string, merchantId: string | undefined): Promise<string | undefined> {
    return subs.findSubscriptionId(this.sql, ref, merchantId);
  }
  subscriptionCodeOf(subscriptionId: string): Promise<string | undefined> {
    return txns.subscriptionCodeOf(this.sql, subscriptionId);
  }
  listSubscriptions(merchantId: string, filter: SubscriptionFilter): Promise<SubscriptionListRow[]> {
    return subs.listSubscriptionRows(this.sql, merchantId, filter);
  }
  nextBillingTime(subscriptionId: string): Promise<number | null> {
    return records.nextBillingTime(this.sql, subscriptionId);
  }
  pendingRecords(subscriptionId: string): Promise<BillingRecordRow[]> {
    return records.pendingRecords(this.sql, subscriptionId);
  }
  latestRecord(subscriptionId: string): Promise<BillingRecordRow | undefined> {
    return records.latestRecord(this.sql, subscriptionId);
  }
  renewChargedBefore(subscriptionId: string, at: number): Promise<number | null> {
    return records.renewChargedBefore(this.sql, subscriptionId, at);
  }
  getRecord(id: string): Promise<BillingRecordRow | undefined> {
    return records.getRecord(this.sql, id);
  }
  stalePendingChanges(before: number, limit: number): Promise<string[]> {
    return records.stalePendingChanges(this.sql, before, limit);
  }
  getSubscriptionByCardToken(token: string): Promise<SubscriptionRow | undefined> {
    return subs.getSubscriptionByCardToken(this.sql, token);
  }
  openCardCheckId(subscriptionId: string): Promise<string | undefined> {
    return subs.openCardCheckId(this.sql, subscriptionId);
  }
  getCard(id: string): Promise<CardRow | undefined> {
    return cards.getCard(this.sql, id);
  }
  countRecords(subscriptionId: string, status: RecordStatus | undefined): Promise<number> {
    return records.countRecords(this.sql, subscriptionId, status);
  }
  pageRecords(
    subscriptionId: string,
    status: RecordStatus | undefined,
    limit: number,
    offset: number,
  ): Promise<BillingRecordRow[]> {
    return records.pageRecords(this.sql, subscriptionId, status, limit, offset);
  }
  dueRecords(now: number, limit: number, cursor: DueCursor): Promise<DuePage> {
    return records.dueRecords(this.sql, now, limit, cursor);
  }
  countDue(now: number): Promise<number> {
    return records.countDue(this.sql, now);
  }
  listEvents(f: EventFilter): Promise<EventRow[]> {
    return outbox.listEvents(this.sql, f);
  }
  getEvent(id: string): Promise<EventRow | undefined> {
    return outbox.getEvent(this.sql, id);
  }
  listEmails(f: EmailFilter): Promise<CustomerEmailRow[]> {
    return emails.listEmails(this.sql, f);
  }
  getEmail(id: string): Promise<CustomerEmailRow | undefined> {
    return emails.getEmail(this.sql, id);
  }
  expiringCardCandidates(q: ExpiringCardQuery): Promise<ExpiringCard[]> {
    return emails.expiringCardCandidates(this.sql, q);
  }
  getMeta(key: string): Promise<string | undefined> {
    return vault.getMeta(this.sql, key);
  }
  planOwner(planId: string): Promise<string | undefined> {
    return lookup.planOwner(this.sql, planId);
  }
  subscriptionOwner(idOrCode: string): Promise<{ id: string; code: string; merchantId: string } | undefined> {
    return lookup.subscriptionOwner(this.sql, idOrCode);
  }
  transactionOwner(id: string): Promise<string | undefined> {
    return lookup.transactionOwner(this.sql, id);
  }
  pagePlanIds(f: Owned & { status?: string | undefined }): Promise<OwnedId[]> {
    return lookup.pagePlanIds(this.sql, f);
  }
  pageSubscriptionIds(f: Owned & { userId?: string | undefined; status?: string | undefined }): Promise<OwnedId[]> {
    return lookup.pageSubscriptionIds(this.sql, f);
  }
  pageTransactionIds(f: Owned & { status?: number | undefined }): Promise<OwnedId[]> {
    return lookup.pageTransactionIds(this.sql, f);
  }
  pageEventIds(f: Owned & { status?: string | undefined; subscriptionId?: string | undefined }): Promise<OwnedId[]> {
    return lookup.pageEventIds(this.sql, f);
  }
  listTracking(f: Owned & { transactionId?: string | undefined }): Promise<TrackingRow[]> {
    return tracking.listTracking(this.sql, f);
  }

  // ---- Store's own reads (outside any unit of work), the same on both engines.

  operationalCounts(): Promise<OperationalCounts> {
    return operations.operationalCounts(this.sql);
  }
  outboxBacklog(): Promise<number> {
    return operations.outboxBacklog(this.sql);
  }
  holdsSealedData(): Promise<boolean> {
    return vault.holdsSealedData(this.sql);
  }
  anySealedValue(): Promise<string | undefined> {
    return vault.anySealedValue(this.sql);
  }
  countSealed(): Promise<number> {
    return vault.countSealed(this.sql);
  }
  sealedBatch(col: SealedColumn, afterId: string, limit: number): Promise<SealedRow[]> {
    return vault.sealedBatch(this.sql, col, afterId, limit);
  }

  getInvoiceByToken(token: string): Promise<InvoiceRow | undefined> {
    return documents.getInvoiceByToken(this.sql, token);
  }
  getInvoiceByTransaction(transactionId: string): Promise<InvoiceRow | undefined> {
    return documents.getInvoiceByTransaction(this.sql, transactionId);
  }
  invoicesByNumber(merchantId: string | undefined, number: string): Promise<InvoiceRow[]> {
    return documents.invoicesByNumber(this.sql, merchantId, number);
  }
  countInvoices(f: DocumentFilter): Promise<number> {
    return documents.countInvoices(this.sql, f);
  }
  pageInvoices(f: DocumentFilter, limit: number, offset: number): Promise<InvoiceRow[]> {
    return documents.pageInvoices(this.sql, f, limit, offset);
  }
  creditNotesOfTransaction(transactionId: string): Promise<CreditNoteRow[]> {
    return documents.creditNotesOfTransaction(this.sql, transactionId);
  }
  creditNotesByNumber(merchantId: string | undefined, number: string): Promise<CreditNoteRow[]> {
    return documents.creditNotesByNumber(this.sql, merchantId, number);
  }
  getCreditNoteByRefund(refundId: string): Promise<CreditNoteRow | undefined> {
    return documents.getCreditNoteByRefund(this.sql, refundId);
  }
  getCreditNoteByToken(token: string): Promise<CreditNoteRow | undefined> {
    return documents.getCreditNoteByToken(this.sql, token);
  }
  /** The revenue report's figures (Store.revenueFigures), on the committed state. */
  revenueFigures(q: RevenueQuery): Promise<RevenueMonthFigures[]> {
    return report.revenueFigures(this.sql, q);
  }
}
