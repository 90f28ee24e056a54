import { completeRow, type NewRowOf, type RowOf } from './tables/define.js';
import type { SequenceColumn, TakenNumber } from './sequence-sql.js';
import * as tables from './tables/index.js';
import type { SubscriptionStatus } from '../domain/subscription-state.js';

/**
 * The store boundary: the one interface every database engine implements (SQLite in
 * `store/sqlite/`, PostgreSQL next). Services, notify/, http/ and cli/ see only this module —
 * never a driver, a dialect, SQL or a connection.
 *
 * Every method is async because a server database is; the SQLite engine answers from
 * synchronous statements wrapped in resolved promises, so nothing waits on I/O between them.
 *
 * Two parts:
 *  - `Store`: reads outside any unit of work (they see the last committed state, never a unit
 *    of work still open), the one unit-of-work entry point `transaction(fn)`, and engine-level
 *    operations that are not part of a request (time zone, backup, close).
 *  - `Tx`: what a unit of work may do, named for what it does. Reads inside a unit of work see
 *    its own writes and every unit of work committed before it.
 *
 * Unit-of-work contract (`Store.transaction(fn)`):
 *  - all of `fn`'s writes commit together or not at all; a `fn` that throws leaves nothing and its
 *    error rejects the returned promise; the promise resolves only once the commit is durable;
 *  - `fn` MAY RUN MORE THAN ONCE: SQLite's group-commit writer redoes a batch call by call after
 *    one call failed having written, and PostgreSQL retries a unit of work after a serialization
 *    failure or a unique violation. So `fn` must change nothing outside the database but what it
 *    returns, and must never call the channel, the network or anything slow: it awaits only `tx`;
 *  - `fn` must not call `transaction` again (units of work do not nest) nor keep `tx` after it returns;
 *  - read-then-write checks that must hold across processes read with a locking read
 *    (`lockTransaction`, `lockSubscription`): PostgreSQL takes a row lock (`SELECT … FOR UPDATE`),
 *    SQLite reads plainly (its `BEGIN IMMEDIATE` already serialises every writer). Limits that can
 *    be one statement are one conditional write instead (`reservePlanSlot`, `reserveRefund`,
 *    `claimCharge`, `updateTransactionIf`), checked by its result; uniqueness (idempotency keys,
 *    relationId) is also a constraint, so a race ends in a rejected unit of work, never a duplicate.
 */
export interface Store extends Reads {
  /** Run one unit of work (see the contract above). */
  transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T>;
  /**
   * The database's time zone: recorded on first open (`wanted`, or UTC); a later different
   * explicit zone is refused with StoreOpenError because stored billing times would shift.
   */
  settleZone(wanted: string | undefined): Promise<string>;
  /**
   * An online copy of the whole database into a new file (SQLite), created mode 0600 before the
   * first page is written; a partial copy is removed. `pages` copied.
   */
  backup(file: string): Promise<{ pages: number }>;
  /**
   * Rekey plain request fingerprints of an older database under the vault key, once (a marker
   * records it), all rows or none. Returns how many rows were rewritten.
   */
  keyPlainFingerprints(opts: RekeyOptions): Promise<number>;
  /**
   * Copy the whole database (every table, `meta` with the time zone and the vault key check value)
   * from one snapshot into the EMPTY database `target` — a SQLite file or a postgres:// URL,
   * created and migrated if needed — in batches, verified by row counts per table. Sealed
   * values are copied as they are (same vault key). A target holding rows is refused (1001)
   * before anything is written; a failed copy removes what it wrote, and so does one stopped by
   * `signal` (it rejects with CopyInterrupted). See store/copy.ts.
   */
  copyTo(target: string, onProgress?: (p: CopyProgress) => void, signal?: AbortSignal): Promise<CopySummary>;
  /** Figures for /metrics, read from the database so other processes' work counts too. */
  operationalCounts(): Promise<OperationalCounts>;
  /**
   * The revenue report's raw figures, one entry per month window (in order), aggregated in the
   * database: it stays fast on millions of billing records and holds nothing per record in memory.
   */
  revenueFigures(q: RevenueQuery): Promise<RevenueMonthFigures[]>;
  /** PENDING callback events (due or waiting for a retry). Rejects when the database cannot be read. */
  outboxBacklog(): Promise<number>;
  /** Whether the database holds anything a vault key sealed (or a recorded key check value). */
  holdsSealedData(): Promise<boolean>;
  /** One sealed value to test a vault key against, if the database has any. */
  anySealedValue(): Promise<string | undefined>;
  /** How many sealed values the SEALED_COLUMNS hold. */
  countSealed(): Promise<number>;
  /** The next batch of a sealed column's values after `afterId`, in key order (a key rotation walks them). */
  sealedBatch(col: SealedColumn, afterId: string, limit: number): Promise<SealedRow[]>;
  /** Rewrite the file so no free page or log keeps old values (after a vault key rotation). */
  compact(): Promise<void>;
  /**
   * Rate limits shared by every process on the database (PostgreSQL): count a hit on `key` at
   * `now` against `limit` per sliding 60 s window. Absent on an engine whose one `serve` keeps
   * them in memory (SQLite).
   */
  countRateHit?(key: string, limit: number, now: number): Promise<RateHitResult>;
  /**
   * A PAY's acceptance as one write: its idempotency key and its ACCEPTED row together, durable
   * when this resolves. 'seen': the key was taken (a repeat, or a concurrent duplicate that waited
   * for the first to commit) and nothing was written — the caller answers it in a unit of work of
   * its own; 'relation': the merchant's relationId is taken and nothing was written. PostgreSQL:
   * one statement (postgres/pay.ts); SQLite: one unit of work (sql/pay.ts).
   */
  acceptTransaction(a: Acceptance): Promise<Accepted>;
  /**
   * A sandbox charge, its outcome and its PAYMENT callback as one write: the ledger entry unless
   * its key is taken, then (only if it was written) the transaction moved from `from`, then
   * (only if it moved) the event. See `ChargeOutcome`.
   */
  recordSandboxOutcome(o: ChargeOutcome): Promise<OutcomeRecorded>;
  /**
   * A new sandbox PAY whole: what `acceptTransaction(a)` and then, only if it accepted,
   * `recordSandboxOutcome(o)` would write, committed together (the sandbox's charge is a row of
   * this database: nothing outside it can be charged without the acceptance). SQLite: ONE unit of
   * work; PostgreSQL: ONE statement, which inserts the row as the outcome leaves it.
   */
  payOnSandbox(a: Acceptance, o: ChargeOutcome): Promise<SandboxPaid>;
  /** Forget budgets with no hit left in the window. */
  sweepRateHits?(now: number): Promise<void>;
  /**
   * One slot of `limit` per `windowMs` on `key` (a Stripe account's calls per second), counted
   * for every process on the database: 0 when taken, else the milliseconds to wait. Absent where
   * one process counts in memory (SQLite).
   */
  takeCallSlot?(key: string, limit: number, now: number, windowMs: number): Promise<number>;
  /**
   * One of `limit` places for a Stripe account's calls under way, counted for every process on
   * the database: false when all are taken. Held until `leaveCallRunning` or `until` (epoch ms),
   * so a process that dies frees its places. Absent where one process counts in memory (SQLite).
   */
  enterCallRunning?(key: string, limit: number, now: number, until: number): Promise<boolean>;
  leaveCallRunning?(key: string, until: number): Promise<void>;
  close(): Promise<void>;
}

export type RateHitResult = { ok: true } | { ok: false; retryAfter: number };

export interface Acceptance {
  row: TransactionRow;
  key: NewIdempotency;
}

export type Accepted = 'accepted' | 'seen' | 'relation';

/**
 * What a customer-present sandbox charge writes, decided before anything is written (the sandbox
 * decides from the card alone): each part is written only if the one before it was.
 */
export interface ChargeOutcome {
  /** The sandbox ledger's entry; a taken key (a re-drive) writes nothing at all. */
  entry: SandboxChargeRow;
  transactionId: string;
  /** The status the transaction must still be in (a conditional update, as updateTransactionIf). */
  from: number;
  patch: Partial<Omit<TransactionRow, 'id'>>;
  /** The callback the outcome sends, if it sends one. */
  event?: NewEvent;
  /** An approved charge's invoice (and its receipt), numbered in the same write, only if the transaction moved. */
  invoice?: OutcomeInvoice;
}

/**
 * An invoice issued with the outcome. Its number is taken from the merchant's sequence by the
 * write itself, so what must show it is given with `marker`, a random string standing for the
 * number: the event's body value equal to it, the receipt's dedupeKey and its details' value
 * equal to it are written with the number instead (never user input: random per charge).
 */
export interface OutcomeInvoice {
  row: NewInvoice;
  marker: string;
  /** The receipt email, when there is someone to send it to (the merchant's switches are checked by the write). */
  receipt?: NewCustomerEmail;
}

/** `entered`: the ledger entry was written; `row`: the transaction after the update, when it moved. */
export interface OutcomeRecorded {
  entered: boolean;
  row?: TransactionRow;
}

/** `payOnSandbox`'s answer: the acceptance's, and the outcome's when it accepted. */
export type SandboxPaid = { accepted: 'seen' | 'relation' } | { accepted: 'accepted'; recorded: OutcomeRecorded };

/** Reads, on both sides of the boundary: on `Store` the committed state, on `Tx` the unit of work's view. */
export interface Reads {
  getMerchant(id: string): Promise<MerchantRow | undefined>;
  /** By its apiKey, or by its previous one (the caller checks prevApiKeyUntil). */
  getMerchantByApiKey(apiKey: string): Promise<MerchantRow | undefined>;
  /** Oldest first. */
  listMerchants(): Promise<MerchantRow[]>;
  /** Whether any merchant holds a Stripe key: without one, nothing can call Stripe. */
  anyStripeMerchant(): Promise<boolean>;

  /** A plan of this merchant; another merchant's plan reads as absent. */
  getPlan(merchantId: string, id: string): Promise<PlanRow | undefined>;
  /** Newest first. */
  listPlans(merchantId: string, status?: 'ACTIVE' | 'INACTIVE'): Promise<PlanRow[]>;
  getPlanInfo(planId: string): Promise<{ name: string; description: string | null } | undefined>;

  /** A customer-portal link by the SHA-256 of its token (SPEC §18). */
  getPortalSession(tokenHash: string): Promise<PortalSessionRow | undefined>;

  /** A coupon of this merchant by its code; another merchant's reads as absent. */
  getCoupon(merchantId: string, code: string): Promise<CouponRow | undefined>;
  /** Newest first. */
  listCoupons(merchantId: string): Promise<CouponRow[]>;

  getTransaction(id: string): Promise<TransactionRow | undefined>;
  /** Another merchant's transaction reads as absent. */
  getMerchantTransaction(merchantId: string, id: string): Promise<TransactionRow | undefined>;
  getTransactionByRelation(merchantId: string, relationId: string): Promise<TransactionRow | undefined>;
  getTransactionByPageToken(token: string): Promise<TransactionRow | undefined>;
  /** Newest first. */
  listTransactions(f: TransactionFilter): Promise<TransactionRow[]>;
  /** Open 3DS / checkout sessions whose page expired at `now`, oldest expiry first. */
  stalePageIds(now: number, limit: number): Promise<string[]>;
  /** Customer-present charges a processor left in flight (ACCEPTED with a channel ref, not renewals), oldest first. */
  inFlightChargeIds(before: number, limit: number): Promise<string[]>;
  /**
   * Customer-present charges (PAY, SUBSCRIPTION, CARD_CHECK) started but never recorded: ACCEPTED
   * with no channel result, their charge lease begun at or before `before` (the process died
   * mid-charge), oldest first after `after` ({ updatedAt: -1, id: '' } from the start).
   */
  unrecordedCharges(before: number, after: UnrecordedCharge, limit: number): Promise<UnrecordedCharge[]>;
  /** The Stripe charge of a PaymentIntent id, for its webhook (a sandbox charge is never looked up by its ref). */
  getTransactionByChannelRef(merchantId: string, channelRef: string): Promise<TransactionRow | undefined>;
  /** The refund of a processor's refund id (a Stripe Refund), for its webhook. */
  getRefundByChannelRef(merchantId: string, channelRef: string): Promise<RefundRow | undefined>;
  getIdempotency(merchantId: string, scope: IdempotencyScope, requestId: string): Promise<IdempotencyRow | undefined>;

  getRefund(id: string): Promise<RefundRow | undefined>;
  /** Refunds still PENDING whose last change is before `before`. */
  stalePendingRefundIds(before: number, limit: number): Promise<string[]>;

  /** A subscription of this merchant; another merchant's reads as absent. */
  getSubscription(merchantId: string, id: string): Promise<SubscriptionRow | undefined>;
  getSubscriptionById(id: string): Promise<SubscriptionRow | undefined>;
  getSubscriptionByCode(merchantId: string, code: string): Promise<SubscriptionRow | undefined>;
  /** By code or id, optionally of one merchant only. */
  findSubscriptionId(ref: string, merchantId: string | undefined): Promise<string | undefined>;
  /** The code shown with a subscription's transactions. */
  subscriptionCodeOf(subscriptionId: string): Promise<string | undefined>;
  /** Newest first, with each subscription's plan name/description and next billing time. */
  listSubscriptions(merchantId: string, filter: SubscriptionFilter): Promise<SubscriptionListRow[]>;
  /** The earliest PENDING record's time, or null. */
  nextBillingTime(subscriptionId: string): Promise<number | null>;
  /** A subscription's PENDING records, oldest scheduled first. */
  pendingRecords(subscriptionId: string): Promise<BillingRecordRow[]>;
  /**
   * The latest record of a subscription's calendar (by creation), whatever its status: INITIAL,
   * RENEW or RETRY. A CHANGE is left out: a declined one moves no date, and a successful one
   * is followed by the RENEW it schedules.
   */
  latestCalendarRecord(subscriptionId: string): Promise<BillingRecordRow | undefined>;
  /** When the subscription's last RENEW charged at or before `at` was charged (a RETRY's RENEW), or null. */
  renewChargedBefore(subscriptionId: string, at: number): Promise<number | null>;
  getRecord(id: string): Promise<BillingRecordRow | undefined>;
  /** PENDING CHANGE records created before `before` (a plan change whose request died mid-way), oldest first. */
  stalePendingChanges(before: number, limit: number): Promise<string[]>;
  /** The subscription a card-update page token (updateCardUrl) belongs to, whatever its state. */
  getSubscriptionByCardToken(token: string): Promise<SubscriptionRow | undefined>;
  /**
   * A subscription's card check (CARD_CHECK transaction) not finished yet — the processor still
   * deciding, or waiting for 3-D Secure — the latest if several.
   */
  openCardCheckId(subscriptionId: string): Promise<string | undefined>;
  /** A vaulted card, its number still sealed (a plan change charges the card on file). */
  getCard(id: string): Promise<CardRow | undefined>;
  countRecords(subscriptionId: string, status: RecordStatus | undefined): Promise<number>;
  /** Newest first (creation order), one page. */
  pageRecords(
    subscriptionId: string,
    status: RecordStatus | undefined,
    limit: number,
    offset: number,
  ): Promise<BillingRecordRow[]>;

  /**
   * Due, claimable RENEW/RETRY records of enabled merchants, oldest first, continuing after
   * `cursor` (null: from the start). Its cost follows the due work, not the table size.
   */
  dueRecords(now: number, limit: number, cursor: DueCursor): Promise<DuePage>;
  /** How many records `dueRecords` would list at `now` (from the start). */
  countDue(now: number): Promise<number>;
  /**
   * Merchants whose records due at `now` (as `dueRecords`) are charged through Stripe (their card
   * is kept there), each with its sealed Stripe key: what `renew --at` checks before running ahead.
   */
  dueStripeKeys(now: number): Promise<Array<{ merchantId: string; stripeSecretKeyEnc: string }>>;

  /** Outbox events, newest first. */
  listEvents(f: EventFilter): Promise<EventRow[]>;
  getEvent(id: string): Promise<EventRow | undefined>;

  /** Customer emails, newest first. */
  listEmails(f: EmailFilter): Promise<CustomerEmailRow[]>;
  getEmail(id: string): Promise<CustomerEmailRow | undefined>;
  /** Card-expiring candidates (SPEC §17), soonest first: see sql/customer-emails.ts. */
  expiringCardCandidates(q: ExpiringCardQuery): Promise<ExpiringCard[]>;

  /** A `meta` value: the engine's bookkeeping beside the data (vault key check, rotation state). */
  getMeta(key: string): Promise<string | undefined>;

  /** The operator's lookups: which merchant owns an object named by its id (ids are unique across merchants). */
  planOwner(planId: string): Promise<string | undefined>;
  /** A subscription by its id or its code. */
  subscriptionOwner(idOrCode: string): Promise<{ id: string; code: string; merchantId: string } | undefined>;
  transactionOwner(id: string): Promise<string | undefined>;
  /** Pages of ids across merchants, newest first, one more than `limit` (so the caller knows whether another page follows). */
  pagePlanIds(f: { merchantId?: string | undefined; status?: string | undefined } & PageWindow): Promise<OwnedId[]>;
  pageSubscriptionIds(
    f: { merchantId?: string | undefined; userId?: string | undefined; status?: string | undefined } & PageWindow,
  ): Promise<OwnedId[]>;
  pageTransactionIds(
    f: { merchantId?: string | undefined; status?: number | undefined } & PageWindow,
  ): Promise<OwnedId[]>;
  pageEventIds(
    f: {
      merchantId?: string | undefined;
      status?: string | undefined;
      subscriptionId?: string | undefined;
    } & PageWindow,
  ): Promise<OwnedId[]>;
  /** Uploaded tracking entries, newest first: every merchant's, one merchant's, or one transaction's. */
  listTracking(
    f: { merchantId?: string | undefined; transactionId?: string | undefined } & PageWindow,
  ): Promise<TrackingRow[]>;

  /** The invoice behind a hosted page's token. */
  getInvoiceByToken(token: string): Promise<InvoiceRow | undefined>;
  /** A charge's invoice (at most one). */
  getInvoiceByTransaction(transactionId: string): Promise<InvoiceRow | undefined>;
  /** Invoices so numbered: of one merchant (at most one), or of every merchant (at most 10). */
  invoicesByNumber(merchantId: string | undefined, number: string): Promise<InvoiceRow[]>;
  countInvoices(f: DocumentFilter): Promise<number>;
  /** Newest first. */
  pageInvoices(f: DocumentFilter, limit: number, offset: number): Promise<InvoiceRow[]>;
  /** The credit notes of a charge's refunds, oldest first. */
  creditNotesOfTransaction(transactionId: string): Promise<CreditNoteRow[]>;
  creditNotesByNumber(merchantId: string | undefined, number: string): Promise<CreditNoteRow[]>;
  getCreditNoteByRefund(refundId: string): Promise<CreditNoteRow | undefined>;
  /** The credit note of a hosted page's link. */
  getCreditNoteByToken(token: string): Promise<CreditNoteRow | undefined>;
}

/** Which invoices a list shows; every field given narrows it. */
export interface DocumentFilter {
  merchantId?: string | undefined;
  transactionId?: string | undefined;
  subscriptionId?: string | undefined;
  userId?: string | undefined;
}

export interface PageWindow {
  limit: number;
  offset: number;
}

/** An object's id and its merchant, as the page queries answer. */
export interface OwnedId {
  id: string;
  merchantId: string;
}

/** A unit of work's repository. Only valid while its `fn` runs. */
export interface Tx extends Reads {
  /** Locking reads: the row as it is now, held against other units of work until this one ends. */
  lockTransaction(id: string): Promise<TransactionRow | undefined>;
  lockSubscription(merchantId: string, id: string): Promise<SubscriptionRow | undefined>;

  insertMerchant(row: MerchantRow): Promise<void>;
  updateMerchant(id: string, patch: Partial<Omit<MerchantRow, 'id'>>): Promise<void>;
  /**
   * Set a document sequence's next number to `requested` unless it is already past it: undefined
   * when moved (or unchanged), else the current next number, and nothing written.
   */
  moveDocumentSequence(merchantId: string, which: SequenceColumn, requested: number): Promise<number | undefined>;
  /**
   * Take the next number of a merchant's sequence, and its prefix now. Gap-free only because it is
   * taken in the unit of work that writes the document: undefined for an unknown merchant.
   */
  takeDocumentNumber(merchantId: string, which: SequenceColumn): Promise<TakenNumber | undefined>;
  /**
   * Issue an invoice: take the merchant's next invoice number and write the document with the
   * merchant's identity as it is now, in one step. Gap-free only inside the unit of work that
   * records the charge. The number, or undefined for an unknown merchant (nothing written).
   */
  issueInvoice(inv: NewInvoice): Promise<string | undefined>;
  /** The same for a refund's credit note, from the credit-note sequence. */
  issueCreditNote(cn: NewCreditNote): Promise<string | undefined>;
  /** Give a credit note issued before credit notes had pages its token: false when it already has one. */
  giveCreditNoteToken(id: string, token: string): Promise<boolean>;

  insertPlan(row: PlanRow): Promise<void>;
  setPlanStatus(id: string, status: 'ACTIVE' | 'INACTIVE'): Promise<void>;
  /** Take one place on an ACTIVE plan below its maxSubscriptions (0 = unlimited); false when refused. */
  reservePlanSlot(planId: string): Promise<boolean>;
  /** Give a place back (never below zero). */
  releasePlanSlot(planId: string): Promise<void>;

  insertPortalSession(row: PortalSessionRow): Promise<void>;
  /** Forget portal links that expired before `cutoff`. */
  deletePortalSessionsBefore(cutoff: number): Promise<void>;
  /** Count one card check on a portal link below `max`; false when it has had them all. */
  countPortalCardCheck(tokenHash: string, max: number): Promise<boolean>;

  insertCoupon(row: CouponRow): Promise<void>;
  setCouponStatus(id: string, status: 'ACTIVE' | 'INACTIVE'): Promise<void>;
  /** Count one redemption of an ACTIVE coupon not past its redeemBy at `now`, below its maxRedemptions; false when refused. */
  reserveCouponRedemption(id: string, now: number): Promise<boolean>;
  /** Give back a redemption: the subscription that took it never started (its first charge failed). */
  releaseCouponRedemption(id: string): Promise<void>;

  insertTransaction(row: TransactionRow): Promise<void>;
  insertIdempotency(row: NewIdempotency): Promise<void>;
  /** Apply `patch` only while the transaction is still in `fromStatus`; whether it applied. */
  updateTransactionIf(id: string, fromStatus: number, patch: Partial<Omit<TransactionRow, 'id'>>): Promise<boolean>;
  /**
   * Take over the charge of an ACCEPTED transaction with no channel result whose charge began
   * (updated_at) at least `leaseMs` before `now`; exactly one caller wins.
   */
  claimCharge(id: string, now: number, leaseMs: number): Promise<boolean>;
  /** The channel threw: let the next repeat of the request re-drive the charge at once. */
  releaseCharge(id: string, now: number, leaseMs: number): Promise<void>;
  /**
   * Push an open, unexpired page's expiry to at least `until` and hold it for a charge until then
   * (`chargeHeldUntil`: no cancel closes it meanwhile); false when it is no longer open.
   */
  holdPage(id: string, openStatus: number, now: number, until: number): Promise<boolean>;
  /**
   * End an open first charge (3DS or checkout) as `status`, its page token cleared; false if not
   * open, or if a charge is under way (ACCEPTED, or a page held for its charge): that completes.
   */
  closeOpenCharge(id: string, status: number, now: number): Promise<boolean>;

  /**
   * Delete a PAY or SUBSCRIPTION still ACCEPTED with no channel ref, and its requestId: the channel
   * refused to run it. A SUBSCRIPTION's INCOMPLETE subscription, INITIAL record, card row and plan
   * place go with it. false (nothing deleted) when it moved on meanwhile.
   */
  discardUncharged(id: string): Promise<boolean>;

  insertRefund(row: RefundRow): Promise<void>;
  /** Reserve `amount` of a refundable transaction; false when it would exceed what is left. */
  reserveRefund(txnId: string, amount: number, now: number): Promise<boolean>;
  /** PENDING → SUCCEEDED | FAILED, once; whether it moved. */
  settleRefund(id: string, outcome: RefundOutcome): Promise<boolean>;
  /** Record the channel's id of a refund that stays PENDING (the channel settles it later). */
  noteRefundRef(id: string, channelRef: string): Promise<void>;
  /**
   * Delete a refund still PENDING with no channel ref, and its requestId: the channel refused to
   * run it. The caller releases its reservation in the same unit of work.
   */
  discardRefusedRefund(id: string): Promise<boolean>;
  /** Settle a reservation into refunded_amount (and the refund status), or release it. */
  settleReservation(txnId: string, amount: number, refunded: boolean, now: number): Promise<void>;

  insertCard(row: CardRow): Promise<void>;
  /** A Stripe-kept card (channel 'stripe') records Stripe's Customer and PaymentMethod ids and display fields. */
  setStripeCard(id: string, card: StripeCardIds): Promise<void>;
  /** Delete a vaulted card; its subscriptions' card_id becomes null first. */
  deleteCard(id: string): Promise<void>;

  insertSubscription(row: SubscriptionRow): Promise<void>;
  setSubscriptionStatus(id: string, patch: SubscriptionStatusPatch): Promise<void>;
  /** INCOMPLETE → ACTIVE with the first charge counted; false when it was no longer INCOMPLETE. */
  activateSubscription(id: string, a: { paidThrough: number; amount: number; now: number }): Promise<boolean>;
  /** INCOMPLETE → EXPIRED with the failed charge counted; false when it was no longer INCOMPLETE. */
  expireSubscription(id: string, now: number): Promise<boolean>;
  /** Count one charge on a subscription: its amount if approved, a failure if not, paid_through moved forward. */
  addChargeToSubscription(
    id: string,
    c: { approved: boolean; amount: number; paidThrough: number | null; now: number },
  ): Promise<void>;

  /** The card renewals charge from now on. */
  setSubscriptionCard(id: string, cardId: string, now: number): Promise<void>;
  /** The hosted card-update page's token and its end (null, null: no page); the new link has made no card checks. */
  setCardUpdateToken(id: string, token: string | null, expiresAt: number | null): Promise<void>;
  /** One more card check made while the current card-update link lives (`cardUpdateChecks`). */
  countCardLinkCheck(id: string): Promise<void>;
  /** Move a PENDING record no run has claimed to `scheduledTime`; false when it is claimed or no longer PENDING. */
  rescheduleRecord(id: string, scheduledTime: number): Promise<boolean>;
  /** Move a subscription to another plan: price, cycle, anchor, paid period and carried credit; clears a pending change. */
  applyPlanChange(id: string, c: PlanSwitch): Promise<void>;
  /** The plan a change at period end moves to (null: none). */
  setPendingPlan(id: string, planId: string | null, now: number): Promise<void>;
  /** Spend `amount` of the subscription's carried credit (never below zero). */
  spendCredit(id: string, amount: number, now: number): Promise<void>;
  /** The coupon the subscription holds from now on (replacing any other, its cycles at 0), or none. */
  setSubscriptionCoupon(id: string, c: SubscriptionCoupon, now: number): Promise<void>;
  /** Cycles the coupon in force has covered (SPEC §19: a paid charge it discounted). */
  setCouponCyclesUsed(id: string, cyclesUsed: number, now: number): Promise<void>;
  /** Re-price a PENDING record no run has claimed; false when it is claimed or no longer PENDING. */
  repriceRecord(id: string, p: RecordPrice): Promise<boolean>;

  /** A full record row (a first charge's INITIAL or a plan change's CHANGE, with its transaction). */
  insertBillingRecord(row: BillingRecordRow): Promise<void>;
  /** A PENDING record; returns its id. */
  insertPendingRecord(r: NewRecord): Promise<string>;
  /** A PENDING record's outcome, with no lease to release; false when it was no longer PENDING. */
  settleFirstRecord(id: string, status: 'SUCCESS' | 'FAILED', failReason: string | null, now: number): Promise<boolean>;
  /**
   * Cancel the subscription's PENDING records no run has claimed (a RENEW/RETRY with a
   * transaction is a charge under way and stays; a PENDING INITIAL is always cancelled). Returns them.
   */
  cancelUnclaimedRecords(subscriptionId: string): Promise<BillingRecordRow[]>;

  /**
   * Claim due records for `owner` until `leaseUntil`, each by its own conditional write, so
   * concurrent runs split the work; writes the RENEWAL transaction (ACCEPTED, on `channel`) of
   * each claimed record that has none yet. Returns what the charges need, in `ids` order.
   */
  claimDueRecords(
    ids: readonly string[],
    c: { owner: string; now: number; leaseUntil: number; channel: string },
  ): Promise<ClaimedRecord[]>;
  /**
   * `dueRecords`, each record listed also locked for this unit of work, passing over records
   * another unit of work holds (PostgreSQL: FOR UPDATE SKIP LOCKED; SQLite's writer already runs
   * alone). Runs claiming at once then take the next free records instead of all listing the
   * same ones and all but one claiming nothing.
   */
  lockDueRecords(now: number, limit: number, cursor: DueCursor): Promise<DuePage>;
  /**
   * Give back the leases a renewal run holds on records still PENDING (the run failed part-way):
   * the next run takes them at once instead of after the lease. Safe because every charge carries
   * its record's id as idempotency key. Returns how many were released.
   */
  releaseClaims(owner: string): Promise<number>;
  /**
   * Record a PENDING record's outcome and release its lease; false when another run recorded it
   * first. CANCELLED: a renewal taken over on a subscription cancelled or paused since, no charge made.
   */
  settleRecord(
    id: string,
    status: 'SUCCESS' | 'FAILED' | 'CANCELLED',
    failReason: string | null,
    now: number,
  ): Promise<boolean>;
  /** The final result of a renewal charge on its transaction. */
  finishRenewalTransaction(
    id: string,
    r: { approved: boolean; failReason: string | null; channelRef: string | null; now: number },
  ): Promise<void>;

  /**
   * Write a callback event with the change it reports; returns its eventId, or undefined when it
   * was not written because it has nowhere to go (no notifyUrl of its own nor on the merchant).
   */
  enqueueEvent(e: NewEvent): Promise<string | undefined>;
  /** Claim up to `max` due events (ordering rule, per-merchant share); see notify/deliver.ts. */
  claimDueEvents(c: EventClaim): Promise<ClaimedEvent[]>;
  /** Record an attempt and release the lease; false when the lease was lost. */
  finishAttempt(id: string, owner: string, o: AttemptOutcome): Promise<boolean>;
  /** Mark DEAD up to `limit` due events that have no target at all; how many. */
  sweepUnaddressed(now: number, leaseNow: number, limit: number, error: string): Promise<number>;
  /** A DEAD or DELIVERED event back to PENDING, due at `now`, attempts cleared; false otherwise. */
  requeueEvent(id: string, now: number): Promise<boolean>;

  /**
   * Write a customer email with what it reports; its id, or undefined when not written: the
   * merchant has no emailFrom or its customer emails are off, or one with its dedupeKey exists.
   */
  enqueueEmail(e: NewCustomerEmail): Promise<string | undefined>;
  /** Claim up to `max` due customer emails for `owner` (see notify/email/deliver.ts). */
  claimDueEmails(c: EmailClaim): Promise<ClaimedEmail[]>;
  /** Record an email's attempt and release the lease; false when the lease was lost. */
  finishEmailAttempt(id: string, owner: string, o: EmailOutcome): Promise<boolean>;
  /** A DEAD or SENT email back to PENDING, due at `now`, attempts cleared; false otherwise. */
  requeueEmail(id: string, now: number): Promise<boolean>;
  /** The subscription's customer email address (null: none). */
  setSubscriptionEmail(id: string, email: string | null, now: number): Promise<void>;

  setMeta(key: string, value: string): Promise<void>;
  /** Insert unless present; the value there afterwards (the first writer wins). */
  claimMeta(key: string, value: string): Promise<string>;
  deleteMeta(key: string): Promise<void>;
  /** Replace one sealed value (a vault key rotation). */
  updateSealed(col: SealedColumn, id: string, sealed: string): Promise<void>;

  /** Entries accumulate per order; the same (order, trackingNo) again updates it. */
  upsertTracking(e: TrackingUpsert): Promise<void>;

  /** The sandbox channel's ledger (its own table, keyed by idempotency key). */
  insertSandboxCharge(row: SandboxChargeRow): Promise<boolean>;
  getSandboxChargeByKey(idempotencyKey: string): Promise<SandboxChargeRow | undefined>;
  getSandboxCharge(id: string): Promise<SandboxChargeRow | undefined>;
  /** requires_action → `outcome`, once. */
  finishSandboxAction(
    id: string,
    outcome: 'approved' | 'failed',
    declineCode: string | null,
    now: number,
  ): Promise<void>;
  /** Sum of approved refunds of a sandbox charge. */
  sandboxRefunded(chargeId: string): Promise<number>;
}

/** `meta` keys of the vault (SPEC §10). */
export const META = {
  /** Key check value of the vault key this database is sealed under. */
  keyCheck: 'vault_kcv',
  /** Key check value of the key a rotation under way is moving to. */
  rotatingTo: 'vault_rotating_to',
  /**
   * Derived keys of earlier vault keys kept by rotations to recognise what was written under them,
   * sealed under the current key (vault/key-check.ts; earlier versions: JSON purpose → base64).
   */
  pinned: 'vault_pinned',
  /** The same, sealed under the key a rotation under way is moving to. */
  pinnedNext: 'vault_pinned_next',
} as const;

/** Every column holding a vault-sealed value: a key rotation re-encrypts each. */
export const SEALED_COLUMNS = [
  'cards.pan_enc',
  'merchants.secret_enc',
  'merchants.prev_secret_enc',
  'merchants.stripe_secret_key_enc',
  'merchants.stripe_webhook_secret_enc',
] as const;
export type SealedColumn = (typeof SEALED_COLUMNS)[number];

export interface StripeCardIds {
  customerId: string;
  paymentMethodId: string;
  brand: string;
  last4: string;
  expMonth: number;
  expYear: number;
}

export interface SealedRow {
  id: string;
  sealed: string;
}

export interface RekeyOptions {
  /** Plain SHA-256 hex → keyed fingerprint. */
  rekey: (plain: string) => string;
  /**
   * Throws when the vault key is not this database's (`sealed`: one sealed merchant secret, if
   * any): rekeying under a wrong key cannot be undone.
   */
  assertKey: (sealed: string | undefined) => void;
}

/** Rows copied so far, of `total` (all tables); `table` is the one being copied. */
export interface CopyProgress {
  table: string;
  copied: number;
  total: number;
}

/** What `paygate db migrate --dry-run` reports, read without changing the database (either engine). */
export interface MigrationStatus {
  /** Migrations this build has, by tag, in order. */
  known: string[];
  /** Those the database does not have yet (all of them for a database that does not exist). */
  pending: string[];
  exists: boolean;
}

/** Rows per table in the copy, each checked equal to the source's. */
export interface CopySummary {
  tables: Record<string, number>;
}

export interface CountRow {
  kind: string;
  status: string;
  n: number;
}

export interface OperationalCounts {
  /** Transactions by payment type and status code. */
  transactions: CountRow[];
  /** Billing records (charge attempts) by type and status. */
  billing: CountRow[];
  /** Callback events by status, with their delivery attempts summed. */
  callbacks: Array<{ status: string; events: number; attempts: number }>;
}

export { CopyInterrupted, StoreOpenError } from '../domain/errors.js';

/** Every table, by its name in tables/. */
type Tables = Omit<typeof tables, 'TABLES'>;

/** A new row of `table`: what rowOf needs (the NOT NULL columns without a default) and any others. */
export type NewRow<N extends keyof Tables> = NewRowOf<Tables[N]>;

/**
 * The whole row of `table` from the columns the caller sets, every other column null or its
 * default: so adding a nullable or defaulted column to a table changes no code that writes its
 * rows (src/store/README.md, "Adding a table (or a column)").
 */
export function rowOf<N extends keyof Tables>(table: N, r: NewRow<N>): RowOf<Tables[N]> {
  // biome-ignore lint/performance/noDynamicNamespaceImportAccess: every table may be asked for; nothing is bundled
  return completeRow<Tables[N]>(tables[table], r) as RowOf<Tables[N]>;
}

export type MerchantRow = RowOf<typeof tables.merchants>;
export type PlanRow = RowOf<typeof tables.plans>;
export type CouponRow = RowOf<typeof tables.coupons>;
export type PortalSessionRow = RowOf<typeof tables.portalSessions>;
export type TransactionRow = RowOf<typeof tables.transactions>;
export type RefundRow = RowOf<typeof tables.refunds>;
export type CardRow = RowOf<typeof tables.cards>;
export type SubscriptionRow = RowOf<typeof tables.subscriptions>;
export type BillingRecordRow = RowOf<typeof tables.billingRecords>;
export type BillingType = BillingRecordRow['billingType'];
export type RecordStatus = BillingRecordRow['status'];
export type OutboxEventRow = RowOf<typeof tables.outboxEvents>;
export type InvoiceRow = RowOf<typeof tables.invoices>;
export type CreditNoteRow = RowOf<typeof tables.creditNotes>;
/** What the issuer gives; the number and the seller's identity come from the merchant's row. */
const ISSUED = ['number', 'sellerName', 'legalName', 'address', 'taxId', 'supportEmail'] as const;
type Issued = (typeof ISSUED)[number];
export type NewInvoice = Omit<InvoiceRow, Issued>;
/** A credit note issued now always has its page's token (only older ones lack it). */
export type NewCreditNote = Omit<CreditNoteRow, Issued | 'token'> & { token: string };

/** An invoice to issue, from the columns the issuer sets (every other one null or its default, as rowOf). */
export function newInvoice(r: Omit<NewRow<'invoices'>, Issued>): NewInvoice {
  return completeRow(tables.invoices, r, ISSUED);
}

/** A credit note to issue, as newInvoice. */
export function newCreditNote(r: Omit<NewRow<'creditNotes'>, Issued | 'token'> & { token: string }): NewCreditNote {
  return completeRow(tables.creditNotes, r, ISSUED) as NewCreditNote;
}
export type CustomerEmailRow = RowOf<typeof tables.customerEmails>;
export type CustomerEmailKind = CustomerEmailRow['kind'];
export type EmailStatus = CustomerEmailRow['status'];

export interface NewCustomerEmail {
  merchantId: string;
  kind: CustomerEmailKind;
  recipient: string;
  subscriptionId?: string | null;
  transactionId?: string | null;
  recordId?: string | null;
  /** One email per key, ever: a second write with it writes nothing. */
  dedupeKey?: string | null;
  /** The event's facts, stored as JSON: never more of a card than its brand and last four digits. */
  details: Record<string, unknown>;
  now: number;
}

export interface EmailFilter {
  status?: EmailStatus | undefined;
  merchantId?: string | undefined;
  limit: number;
  offset: number;
}

export interface EmailClaim {
  /** Business time: an email is due when its next attempt is at or before it. */
  now: number;
  owner: string;
  /** Real time (Clock.wall): leases are taken and compared on it, whatever clock judges "due". */
  leaseNow: number;
  leaseUntil: number;
  max: number;
}

export type ClaimedEmail = CustomerEmailRow;

export interface EmailOutcome {
  status: EmailStatus;
  attempts: number;
  nextAttemptAt: number | null;
  error: string | null;
  now: number;
}

export interface ExpiringCardQuery {
  now: number;
  until: number;
  /** Only cards whose expiry (year × 12 + month) is below this. */
  expiryBefore: number;
  /** Continue after this renewal (afterTime -1, afterId '' from the start). */
  afterTime: number;
  afterId: string;
  limit: number;
}

/** A renewal coming up and the card on file, for the card-expiring notice. */
export interface ExpiringCard {
  recordId: string;
  renewalAt: number;
  amount: number;
  currency: string;
  subscriptionId: string;
  subscriptionCode: string;
  merchantId: string;
  email: string;
  planName: string;
  brand: string;
  last4: string;
  expMonth: number;
  expYear: number;
}

export interface TransactionFilter {
  merchantId?: string | undefined;
  status?: number | undefined;
  limit: number;
}

/** requestId scopes, and the signature scopes of refunds and tracking uploads sent without one (SPEC §4). */
export type IdempotencyScope = RowOf<typeof tables.idempotencyKeys>['scope'];

/** Only a hash of the request is stored, never the request. */
export type IdempotencyRow = Pick<RowOf<typeof tables.idempotencyKeys>, 'requestHash' | 'resourceId'>;

export interface NewIdempotency {
  merchantId: string;
  scope: IdempotencyScope;
  requestId: string;
  requestHash: string;
  resourceId: string;
  now: number;
}

export interface RefundOutcome {
  status: 'SUCCEEDED' | 'FAILED';
  channelRef: string | null;
  failReason: string | null;
  now: number;
}

export interface SubscriptionFilter {
  userId?: string | undefined;
  status?: SubscriptionStatus | undefined;
  /** Undefined: all. */
  limit?: number | undefined;
}

export interface SubscriptionListRow extends SubscriptionRow {
  planName: string;
  planDescription: string | null;
  nextBillingTime: number | null;
}

export interface SubscriptionStatusPatch {
  status: SubscriptionStatus;
  now: number;
  endTime?: number | null;
  cancelTime?: number | null;
  anchorTime?: number;
}

export interface PlanSwitch {
  planId: string;
  amount: number;
  cycleType: SubscriptionRow['cycleType'];
  cycleLength: number;
  anchorTime: number;
  paidThrough: number | null;
  credit: number;
  now: number;
}

/** What a record charges: for which plan, the amount, and the carried credit it spends beside it. */
export interface RecordPrice {
  planId: string;
  amount: number;
  creditApplied: number;
  /** The coupon that discounts this charge and by how much: amount + creditApplied + discountAmount = the plan's price. */
  couponCode: string | null;
  discountAmount: number;
}

export interface SubscriptionCoupon {
  couponId: string | null;
  couponCode: string | null;
  couponTakenAt: number | null;
}

export interface NewRecord {
  subscriptionId: string;
  merchantId: string;
  billingType: BillingType;
  amount: number;
  currency: string;
  scheduledTime: number;
  retryCount: number;
  cycleIndex: number;
  /** Carried credit this charge spends (default 0): amount + creditApplied = the plan's price. */
  creditApplied?: number;
  /** The plan this charge pays for (default: the subscription's plan). */
  planId?: string | null;
  /** The coupon discounting this charge (default none) and its discount (default 0). */
  couponCode?: string | null;
  discountAmount?: number;
  now: number;
}

/** A position in the due list, opaque outside its engine; null is the start. */
declare const dueCursorBrand: unique symbol;
export type DueCursor = { readonly [dueCursorBrand]: true } | null;

export interface DuePage {
  ids: string[];
  /** Where the next page starts. */
  next: DueCursor;
}

/** Everything a renewal charge needs about a claimed record, read when it was claimed. */
export interface ClaimedRecord {
  id: string;
  subscriptionId: string;
  merchantId: string;
  billingType: 'RENEW' | 'RETRY';
  amount: number;
  currency: string;
  scheduledTime: number;
  retryCount: number;
  cycleIndex: number;
  creditApplied: number;
  /** The plan the record charges for (null: the subscription's). */
  recordPlanId: string | null;
  /** The coupon that discounted this charge (a RETRY carries its RENEW's), and by how much. */
  couponCode: string | null;
  discountAmount: number;
  transactionId: string | null;
  subscriptionStatus: string;
  planId: string;
  userId: string;
  notifyUrl: string | null;
  cardId: string | null;
  panEnc: string | null;
  /** Which channel holds the card: sandbox (panEnc) or stripe (the ids). */
  cardChannel: 'sandbox' | 'stripe' | null;
  stripeCustomerId: string | null;
  stripePaymentMethodId: string | null;
  expMonth: number | null;
  expYear: number | null;
  bin: string | null;
  last4: string | null;
  brand: string | null;
}

export interface NewEvent {
  merchantId: string;
  kind: 'PAYMENT' | 'SUBSCRIPTION';
  /** PAYMENT for payment callbacks; RENEW_SUCCEEDED, RENEW_FAILED, SUBSCRIPTION_FAILED, SUBSCRIPTION_EXPIRED for subscription ones. */
  eventType: string;
  transactionId?: string | null;
  subscriptionId?: string | null;
  /** The transaction's / subscription's own notifyUrl; null means the merchant's default at delivery time. */
  notifyUrl?: string | null;
  /** The callback body without eventId (the store adds it right after notifyType); build it with notify/payloads.ts. */
  body: Record<string, string>;
  now: number;
}

export type EventStatus = OutboxEventRow['status'];

export interface EventFilter {
  status?: EventStatus | undefined;
  merchantId?: string | undefined;
  subscriptionId?: string | undefined;
  limit: number;
}

/** An event as listed: its row without the delivery's working columns and the callback body. */
export type EventRow = Omit<OutboxEventRow, 'seq' | 'payload' | 'leaseOwner' | 'leaseUntil'>;

export interface EventClaim {
  /** Business time: an event is due when its next attempt is at or before it. */
  now: number;
  owner: string;
  /** Real time (Clock.wall): leases are taken and compared on it, whatever clock judges "due". */
  leaseNow: number;
  leaseUntil: number;
  max: number;
  /** At most this many of one merchant, counting `inFlight` (deliveries the caller already runs). */
  perMerchant: number;
  inFlight: ReadonlyMap<string, number>;
}

export interface ClaimedEvent {
  id: string;
  merchantId: string;
  notifyUrl: string | null;
  payload: string;
  attempts: number;
}

export interface AttemptOutcome {
  status: 'PENDING' | 'DELIVERED' | 'DEAD';
  attempts: number;
  nextAttemptAt: number | null;
  httpStatus: number | null;
  error: string | null;
  now: number;
}

export type TrackingRow = Omit<RowOf<typeof tables.trackingEntries>, 'id'> & {
  /** The transaction's relationId (the shop's order reference). */
  relationId: string | null;
};

export interface TrackingUpsert {
  id: string;
  merchantId: string;
  transactionId: string;
  trackingNo: string;
  trackingChannel: string;
  trackUrl: string | null;
  now: number;
}

/** A charge started and never recorded, and its place in the list (the start of its charge lease). */
export interface UnrecordedCharge {
  id: string;
  updatedAt: number;
}

export type SandboxChargeRow = RowOf<typeof tables.sandboxCharges>;

/** A month of the revenue report: [start, end) in epoch ms, already resolved in the zone. */
export interface MonthWindow {
  start: number;
  end: number;
}

export interface RevenueQuery {
  merchantId?: string;
  months: readonly MonthWindow[];
}

/** Active subscriptions at a month's end, grouped by cycle, for the MRR (domain/mrr.ts). */
export interface ActiveCycleGroup {
  cycleType: 'DAILY' | 'WEEKLY' | 'MONTHLY' | 'YEARLY';
  cycleLength: number;
  count: number;
  /** Sum of their prices, minor units. */
  priceSum: number;
}

export interface RevenueMonthFigures {
  newSubscriptions: number;
  churned: number;
  active: ActiveCycleGroup[];
  charged: number;
  refunded: number;
  failedAttempts: number;
  recovered: number;
}

/**
 * Writes every item in ONE unit of work: one commit and, on PostgreSQL, every item's statements
 * pipelined on one connection, instead of a unit of work each. The items must be independent
 * (written side by side, the same as one after another).
 *
 * All or nothing, so when the shared unit of work fails, each item is written again in a unit of
 * work of its own, and a failure stays that item's own. One result per item, in order.
 */
export async function writeTogether<I, R>(
  store: Store,
  items: readonly I[],
  write: (tx: Tx, item: I) => Promise<R>,
): Promise<PromiseSettledResult<R>[]> {
  if (items.length > 1) {
    const together = await store.transaction((tx) => writeAll(tx, items, write)).catch(() => undefined);
    if (together) return together.map((value) => ({ status: 'fulfilled', value }));
  }
  return Promise.allSettled(items.map((item) => store.transaction((tx) => write(tx, item))));
}

/**
 * Every item written before the unit of work ends, even when one fails early: the others are
 * still using `tx`, which must not outlive the unit of work. The first failure then fails it.
 */
async function writeAll<I, R>(tx: Tx, items: readonly I[], write: (tx: Tx, item: I) => Promise<R>): Promise<R[]> {
  const settled = await Promise.allSettled(items.map((item) => write(tx, item)));
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed) throw failed.reason;
  return settled.map((s) => (s as PromiseFulfilledResult<R>).value);
}
