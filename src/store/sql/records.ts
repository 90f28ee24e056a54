import type { BillingRecordRow, DueCursor, DuePage, RecordPrice, RecordStatus } from '../store.js';
import { billingRecords } from '../tables/index.js';
import { insertRow, selectList } from '../tables/rows.js';
import type { Db } from './db.js';

/** Billing-record statements of the lifecycle services (the renewal run's claims: each engine's renewals.ts). */

const COLUMNS = selectList(billingRecords, 'r');

/**
 * What a renewal charge needs of a claimed record (store.ts ClaimedRecord), over `r` (the record),
 * `s` (its subscription) and `c` (its card): each engine's claim (renewals.ts) selects it.
 */
export const CLAIMED_COLUMNS = `r.id, r.subscription_id AS "subscriptionId", r.merchant_id AS "merchantId", r.billing_type AS "billingType", r.amount,
     r.currency, r.scheduled_time AS "scheduledTime", r.retry_count AS "retryCount", r.cycle_index AS "cycleIndex",
     r.credit_applied AS "creditApplied", r.plan_id AS "recordPlanId", r.coupon_code AS "couponCode", r.discount_amount AS "discountAmount", r.transaction_id AS "transactionId", s.status AS "subscriptionStatus", s.plan_id AS "planId", s.user_id AS "userId",
     s.notify_url AS "notifyUrl", s.card_id AS "cardId", c.pan_enc AS "panEnc", c.channel AS "cardChannel",
     c.stripe_customer_id AS "stripeCustomerId", c.stripe_payment_method_id AS "stripePaymentMethodId", c.exp_month AS "expMonth", c.exp_year AS "expYear",
     c.bin, c.last4, c.brand`;

/** A subscription's PENDING records, oldest scheduled first. */
export function pendingRecords(db: Db, subscriptionId: string): Promise<BillingRecordRow[]> {
  return db.all(
    `SELECT ${COLUMNS} FROM billing_records r WHERE r.subscription_id = @subscriptionId AND r.status = 'PENDING'
     ORDER BY r.scheduled_time, ${db.dialect.bytewise('r.id')}`,
    { subscriptionId },
  );
}

export async function nextBillingTime(db: Db, subscriptionId: string): Promise<number | null> {
  const row = await db.get<{ t: number | null }>(
    "SELECT min(scheduled_time) AS t FROM billing_records WHERE subscription_id = @subscriptionId AND status = 'PENDING'",
    { subscriptionId },
  );
  return row?.t ?? null;
}

/** The latest record of a subscription's billing calendar (by creation, CHANGE records left out), whatever its status. */
export function latestCalendarRecord(db: Db, subscriptionId: string): Promise<BillingRecordRow | undefined> {
  return db.get(
    `SELECT ${COLUMNS} FROM billing_records r
     WHERE r.subscription_id = @subscriptionId AND r.billing_type <> 'CHANGE'
     ORDER BY r.created_at DESC, ${db.dialect.bytewise('r.id')} DESC LIMIT 1`,
    { subscriptionId },
  );
}

export async function renewChargedBefore(db: Db, subscriptionId: string, at: number): Promise<number | null> {
  const row = await db.get<{ t: number | null }>(
    `SELECT max(actual_time) AS t FROM billing_records
     WHERE subscription_id = @subscriptionId AND billing_type = 'RENEW' AND actual_time <= @at`,
    { subscriptionId, at },
  );
  return row?.t ?? null;
}

export function getRecord(db: Db, id: string): Promise<BillingRecordRow | undefined> {
  return db.get(`SELECT ${COLUMNS} FROM billing_records r WHERE r.id = @id`, { id });
}

export async function countRecords(db: Db, subscriptionId: string, status: RecordStatus | undefined): Promise<number> {
  const row = await db.get<{ n: number }>(
    `SELECT count(*) AS n FROM billing_records
     WHERE subscription_id = @id AND (CAST(@status AS TEXT) IS NULL OR status = CAST(@status AS TEXT))`,
    { id: subscriptionId, status: status ?? null },
  );
  return row?.n ?? 0;
}

/** Newest first (creation order), one page. */
export function pageRecords(
  db: Db,
  subscriptionId: string,
  status: RecordStatus | undefined,
  limit: number,
  offset: number,
): Promise<BillingRecordRow[]> {
  return db.all(
    `SELECT ${COLUMNS} FROM billing_records r
     WHERE r.subscription_id = @id AND (CAST(@status AS TEXT) IS NULL OR r.status = CAST(@status AS TEXT))
     ORDER BY r.created_at DESC, ${db.dialect.bytewise('r.id')} DESC LIMIT @limit OFFSET @offset`,
    { id: subscriptionId, status: status ?? null, limit, offset },
  );
}

/** A full record row (a first charge's INITIAL record, which carries its transaction from the start). */
export async function insertBillingRecord(db: Db, r: BillingRecordRow): Promise<void> {
  await db.run(insertRow(billingRecords), r);
}

/** A first charge's INITIAL record settles once; false when it was no longer PENDING (cancelled meanwhile). */
export async function settleFirstRecord(
  db: Db,
  id: string,
  status: 'SUCCESS' | 'FAILED' | 'CANCELLED',
  failReason: string | null,
  now: number,
  claim: 'keep' | 'release' = 'keep',
): Promise<boolean> {
  // A renewal run's record also ends the run's claim on it (lease_owner / lease_until).
  const release = claim === 'release' ? ', lease_owner = NULL, lease_until = NULL' : '';
  return (
    (await db.run(
      `UPDATE billing_records SET status = @status, fail_reason = @failReason, actual_time = @now${release}
       WHERE id = @id AND status = 'PENDING'`,
      { id, status, failReason, now },
    )) === 1
  );
}

/** Re-price a PENDING record no run has claimed yet; false when it is claimed or settled. */
export async function repriceRecord(db: Db, id: string, p: RecordPrice): Promise<boolean> {
  return (
    (await db.run(
      `UPDATE billing_records SET plan_id = @planId, amount = @amount, credit_applied = @creditApplied,
         coupon_code = @couponCode, discount_amount = @discountAmount
       WHERE id = @id AND status = 'PENDING' AND transaction_id IS NULL`,
      { id, ...p },
    )) === 1
  );
}

/** Move a PENDING record no run has claimed to `scheduledTime`; false when it is claimed or settled. */
export async function rescheduleRecord(db: Db, id: string, scheduledTime: number): Promise<boolean> {
  return (
    (await db.run(
      "UPDATE billing_records SET scheduled_time = @scheduledTime WHERE id = @id AND status = 'PENDING' AND transaction_id IS NULL",
      { id, scheduledTime },
    )) === 1
  );
}

/** CHANGE records still PENDING created before `before`: a plan change whose request died between its charge and its record. */
export async function stalePendingChanges(db: Db, before: number, limit: number): Promise<string[]> {
  // A CHANGE record is scheduled when it is created and never moved (it has its transaction from
  // the start): the bound on scheduled_time is the same condition, and lets the partial due index
  // skip every record scheduled later (a million future renewals cost nothing).
  const rows = await db.all<{ id: string }>(
    `SELECT id FROM billing_records${db.dialect.indexedBy('billing_records_due')}
     WHERE status = 'PENDING' AND scheduled_time < @before AND billing_type = 'CHANGE' AND created_at < @before
     ORDER BY scheduled_time, ${db.dialect.bytewise('id')} LIMIT @limit`,
    { before, limit },
  );
  return rows.map((r) => r.id);
}

/**
 * The renewal run's due list (SPEC §7): PENDING RENEW/RETRY records due at `now`, unleased, of
 * enabled merchants, in the due index's order. INITIAL records (a first charge awaiting 3DS)
 * belong to the payments flow and CHANGE records to the change request, never to a run.
 */
const DUE_WHERE = `r.status = 'PENDING' AND r.scheduled_time <= @now AND r.billing_type IN ('RENEW', 'RETRY')
    AND (r.lease_until IS NULL OR r.lease_until < @now)
    AND EXISTS (SELECT 1 FROM merchants m WHERE m.id = r.merchant_id AND m.status = 'ACTIVE')`;

/**
 * Keyset position in the due index (scheduled_time, id): each page is a range read of the index
 * from where the last one stopped, however many records share one time. The comparison is a row
 * value on the index's own columns with the parameters as they are, so both planners read it as
 * the range's start (a CAST or an OR hides it from SQLite's).
 */
interface Position {
  afterTime: number;
  afterId: string;
}

const START: Position = { afterTime: -1, afterId: '' };

/**
 * The next page of due records after `cursor`. `lock` (inside a unit of work): each listed record
 * is locked for it, passing over those another unit of work holds (PostgreSQL's SKIP LOCKED; the
 * merchant is read by a subquery, so only the records are locked; SQLite's writer runs alone).
 */
export async function dueRecords(
  db: Db,
  now: number,
  limit: number,
  cursor: DueCursor,
  opts: { lock?: boolean } = {},
): Promise<DuePage> {
  const from = (cursor as unknown as Position | null) ?? START;
  const rows = await db.all<{ id: string; scheduledTime: number }>(
    `SELECT r.id, r.scheduled_time AS "scheduledTime" FROM billing_records r${db.dialect.indexedBy('billing_records_due')}
     WHERE ${DUE_WHERE} AND (r.scheduled_time, r.id) > (@afterTime, @afterId)
     ORDER BY r.scheduled_time, r.id LIMIT @limit${opts.lock ? db.dialect.skipLocked : ''}`,
    { now, limit, ...from },
  );
  const last = rows[rows.length - 1];
  const next: Position = last ? { afterTime: last.scheduledTime, afterId: last.id } : from;
  return { ids: rows.map((r) => r.id), next: next as unknown as DueCursor };
}

/**
 * The merchants whose due records (as `dueRecords` lists them at `now`) go to Stripe — the card
 * is kept by Stripe, so the merchant's own key charges it whatever channel the merchant is on now
 * — with the sealed key that would charge them. One pass over the due index, as countDue.
 */
export function dueStripeKeys(db: Db, now: number): Promise<Array<{ merchantId: string; stripeSecretKeyEnc: string }>> {
  return db.all(
    `SELECT DISTINCT k.id AS "merchantId", k.stripe_secret_key_enc AS "stripeSecretKeyEnc"
     FROM billing_records r${db.dialect.indexedBy('billing_records_due')}
     JOIN subscriptions s ON s.id = r.subscription_id JOIN cards c ON c.id = s.card_id
     JOIN merchants k ON k.id = r.merchant_id
     WHERE ${DUE_WHERE} AND c.channel = 'stripe' AND k.stripe_secret_key_enc IS NOT NULL`,
    { now },
  );
}

/** How many records `dueRecords` lists from the start. */
export async function countDue(db: Db, now: number): Promise<number> {
  const row = await db.get<{ n: number }>(
    `SELECT count(*) AS n FROM billing_records r${db.dialect.indexedBy('billing_records_due')} WHERE ${DUE_WHERE}`,
    { now },
  );
  return Number(row?.n ?? 0);
}

/** See Tx.releaseClaims. Runs only when a run failed: a scan of PENDING records by owner is fine. */
export function releaseClaims(db: Db, owner: string): Promise<number> {
  return db.run(
    "UPDATE billing_records SET lease_owner = NULL, lease_until = NULL WHERE status = 'PENDING' AND lease_owner = @owner",
    { owner },
  );
}

/**
 * Cancel the PENDING records of a subscription that no run has claimed yet, in one statement, and
 * answer them as cancelled. A RENEW/RETRY record that has a transaction is a charge under way (or
 * one a killed run left behind): it stays PENDING so its result is recorded (SPEC §6: a charge
 * under way completes) and nothing is scheduled after it — a run that takes a killed run's record
 * over then only asks the channel about its key, never charges anew (services/renew/charge.ts);
 * on PostgreSQL a record a run claims
 * concurrently is re-checked after its lock and so keeps its transaction. A PENDING INITIAL record
 * (a first charge awaiting 3DS) is always cancelled: its page stops.
 */
export function cancelUnclaimedRecords(db: Db, subscriptionId: string): Promise<BillingRecordRow[]> {
  return db.all(
    `UPDATE billing_records SET status = 'CANCELLED', lease_owner = NULL, lease_until = NULL
     WHERE subscription_id = @subscriptionId AND status = 'PENDING' AND (transaction_id IS NULL OR billing_type = 'INITIAL')
     RETURNING ${selectList(billingRecords)}`,
    { subscriptionId },
  );
}
