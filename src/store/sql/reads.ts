import type { IdempotencyRow, IdempotencyScope, Reads, SubscriptionRow, TransactionRow } from '../store.js';
import * as cards from './cards.js';
import * as coupons from './coupons.js';
import * as emails from './customer-emails.js';
import * as portal from './portal.js';
import { bindStatements, type Bound } from './bind.js';
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

/** The `Reads` methods that are a statement of this folder and nothing more (bind.ts). */
const readStatements = {
  getMerchant: merchants.getMerchant,
  getMerchantByApiKey: merchants.getMerchantByApiKey,
  listMerchants: merchants.listMerchantRows,
  anyStripeMerchant: merchants.anyStripeMerchant,
  getPlan: plans.getPlan,
  listPlans: plans.listPlanRows,
  getPlanInfo: plans.getPlanInfo,
  getMerchantTransaction: txns.getMerchantTransaction,
  getTransactionByRelation: txns.getByRelation,
  getTransactionByPageToken: txns.getByPageToken,
  listTransactions: txns.listTransactionRows,
  stalePageIds: txns.stalePageIds,
  getPortalSession: portal.getPortalSession,
  getCoupon: coupons.getCoupon,
  listCoupons: coupons.listCoupons,
  inFlightChargeIds: txns.inFlightChargeIds,
  unrecordedCharges: txns.unrecordedCharges,
  getTransactionByChannelRef: txns.getByChannelRef,
  getRefundByChannelRef: refunds.getRefundByChannelRef,
  getRefund: refunds.getRefund,
  stalePendingRefundIds: refunds.stalePendingRefundIds,
  getSubscription: subs.getSubscription,
  getSubscriptionByCode: subs.getSubscriptionByCode,
  findSubscriptionId: subs.findSubscriptionId,
  subscriptionCodeOf: txns.subscriptionCodeOf,
  listSubscriptions: subs.listSubscriptionRows,
  nextBillingTime: records.nextBillingTime,
  pendingRecords: records.pendingRecords,
  latestCalendarRecord: records.latestCalendarRecord,
  renewChargedBefore: records.renewChargedBefore,
  getRecord: records.getRecord,
  stalePendingChanges: records.stalePendingChanges,
  getSubscriptionByCardToken: subs.getSubscriptionByCardToken,
  openCardCheckId: subs.openCardCheckId,
  getCard: cards.getCard,
  countRecords: records.countRecords,
  pageRecords: records.pageRecords,
  dueRecords: records.dueRecords,
  countDue: records.countDue,
  dueStripeKeys: records.dueStripeKeys,
  listEvents: outbox.listEvents,
  getEvent: outbox.getEvent,
  listEmails: emails.listEmails,
  getEmail: emails.getEmail,
  expiringCardCandidates: emails.expiringCardCandidates,
  getMeta: vault.getMeta,
  planOwner: lookup.planOwner,
  subscriptionOwner: lookup.subscriptionOwner,
  transactionOwner: lookup.transactionOwner,
  pagePlanIds: lookup.pagePlanIds,
  pageSubscriptionIds: lookup.pageSubscriptionIds,
  pageTransactionIds: lookup.pageTransactionIds,
  pageEventIds: lookup.pageEventIds,
  listTracking: tracking.listTracking,
  // Store's own reads (outside any unit of work), the same on both engines.
  operationalCounts: operations.operationalCounts,
  outboxBacklog: operations.outboxBacklog,
  holdsSealedData: vault.holdsSealedData,
  anySealedValue: vault.anySealedValue,
  countSealed: vault.countSealed,
  sealedBatch: vault.sealedBatch,
  getInvoiceByToken: documents.getInvoiceByToken,
  getInvoiceByTransaction: documents.getInvoiceByTransaction,
  invoicesByNumber: documents.invoicesByNumber,
  countInvoices: documents.countInvoices,
  pageInvoices: documents.pageInvoices,
  creditNotesOfTransaction: documents.creditNotesOfTransaction,
  creditNotesByNumber: documents.creditNotesByNumber,
  getCreditNoteByRefund: documents.getCreditNoteByRefund,
  getCreditNoteByToken: documents.getCreditNoteByToken,
  revenueFigures: report.revenueFigures,
};

// A class and an interface of one name: the interface declares the methods bindStatements gives
// the class at the end of this module.
export interface SqlReads extends Bound<typeof readStatements> {}

/**
 * `Reads` for both engines: the shared statements of store/sql/ over one connection (or pool),
 * the renewal run's due list included. `Store` reads see the last commit; a unit of work's
 * (tx.ts) see its own writes.
 */
// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: see the interface above
export class SqlReads implements Reads {
  constructor(protected readonly sql: Db) {}

  // Statements PostgreSQL's PgTx does its own way (postgres/store.ts), so written out here.
  getTransaction(id: string): Promise<TransactionRow | undefined> {
    return txns.getTransaction(this.sql, id);
  }
  getIdempotency(merchantId: string, scope: IdempotencyScope, requestId: string): Promise<IdempotencyRow | undefined> {
    return txns.getIdempotency(this.sql, merchantId, scope, requestId);
  }
  getSubscriptionById(id: string): Promise<SubscriptionRow | undefined> {
    return subs.getSubscriptionById(this.sql, id);
  }
}

bindStatements(SqlReads, readStatements);
