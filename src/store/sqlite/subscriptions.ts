import { newId } from '../../domain/ids.js';
import type {
  BillingRecordRow,
  NewRecord,
  PlanSwitch,
  RecordPrice,
  RecordStatus,
  SubscriptionFilter,
  SubscriptionListRow,
  SubscriptionRow,
  SubscriptionStatusPatch,
} from '../store.js';
import type { Sqlite } from './client.js';
import { prepared } from './prepared.js';
import { billingRecords, subscriptions } from '../tables/index.js';
import { insertRow, selectList } from '../tables/rows.js';

/**
 * Subscription and billing-record queries of the lifecycle services and the renewal run.
 * Plain prepared SQL (cached per connection) returning drizzle's row shapes.
 */

export const SUBSCRIPTION_COLUMNS = selectList(subscriptions, 's');

export const RECORD_COLUMNS = selectList(billingRecords, 'r');

/** A subscription of this merchant; another merchant's reads as absent (SPEC §2). */
export function getSubscription(sqlite: Sqlite, merchantId: string, id: string): SubscriptionRow | undefined {
  return prepared(
    sqlite,
    `SELECT ${SUBSCRIPTION_COLUMNS} FROM subscriptions s WHERE s.id = ? AND s.merchant_id = ?`,
  ).get(id, merchantId) as SubscriptionRow | undefined;
}

export function getSubscriptionById(sqlite: Sqlite, id: string): SubscriptionRow | undefined {
  return prepared(sqlite, `SELECT ${SUBSCRIPTION_COLUMNS} FROM subscriptions s WHERE s.id = ?`).get(id) as
    | SubscriptionRow
    | undefined;
}

export function getSubscriptionByCode(sqlite: Sqlite, merchantId: string, code: string): SubscriptionRow | undefined {
  return prepared(
    sqlite,
    `SELECT ${SUBSCRIPTION_COLUMNS} FROM subscriptions s WHERE s.code = ? AND s.merchant_id = ?`,
  ).get(code, merchantId) as SubscriptionRow | undefined;
}

/** Newest first; userId optional (the CLI lists a merchant's latest subscriptions). */
export function listSubscriptionRows(
  sqlite: Sqlite,
  merchantId: string,
  filter: SubscriptionFilter,
): SubscriptionListRow[] {
  const sql = `SELECT ${SUBSCRIPTION_COLUMNS}, p.name AS planName, p.description AS planDescription,
      (SELECT min(b.scheduled_time) FROM billing_records b WHERE b.subscription_id = s.id AND b.status = 'PENDING') AS nextBillingTime
    FROM subscriptions s JOIN plans p ON p.id = s.plan_id
    WHERE s.merchant_id = @merchantId AND (@userId IS NULL OR s.user_id = @userId) AND (@status IS NULL OR s.status = @status)
    ORDER BY s.created_at DESC, s.id DESC LIMIT @limit`;
  return prepared(sqlite, sql).all({
    merchantId,
    userId: filter.userId ?? null,
    status: filter.status ?? null,
    limit: filter.limit ?? -1,
  }) as SubscriptionListRow[];
}

/** By code or id, optionally of one merchant only. */
export function findSubscriptionId(sqlite: Sqlite, ref: string, merchantId: string | undefined): string | undefined {
  const row = prepared(
    sqlite,
    'SELECT id FROM subscriptions WHERE (code = @ref OR id = @ref) AND (@merchantId IS NULL OR merchant_id = @merchantId) LIMIT 1',
  ).get({ ref, merchantId: merchantId ?? null }) as { id: string } | undefined;
  return row?.id;
}

export function insertSubscription(sqlite: Sqlite, row: SubscriptionRow): void {
  prepared(sqlite, insertRow(subscriptions)).run(row);
}

/** A charge under way when the subscription was cancelled still counts, but only INCOMPLETE becomes ACTIVE. */
export function activateSubscription(
  sqlite: Sqlite,
  id: string,
  a: { paidThrough: number; amount: number; now: number },
): boolean {
  const activated =
    prepared(
      sqlite,
      `UPDATE subscriptions SET status = 'ACTIVE', paid_through = @paidThrough, billing_count = billing_count + 1,
         total_paid = total_paid + @amount, updated_at = @now WHERE id = @id AND status = 'INCOMPLETE'`,
    ).run({ id, ...a }).changes === 1;
  if (!activated) {
    prepared(
      sqlite,
      'UPDATE subscriptions SET billing_count = billing_count + 1, total_paid = total_paid + ?, updated_at = ? WHERE id = ?',
    ).run(a.amount, a.now, id);
  }
  return activated;
}

export function expireSubscription(sqlite: Sqlite, id: string, now: number): boolean {
  return (
    prepared(
      sqlite,
      `UPDATE subscriptions SET status = 'EXPIRED', end_time = @now, failed_count = failed_count + 1, updated_at = @now
       WHERE id = @id AND status = 'INCOMPLETE'`,
    ).run({ id, now }).changes === 1
  );
}

/** The PENDING record (at most one per subscription besides an in-flight charge): its time is nextBillingTime. */
export function pendingRecords(sqlite: Sqlite, subscriptionId: string): BillingRecordRow[] {
  return prepared(
    sqlite,
    `SELECT ${RECORD_COLUMNS} FROM billing_records r WHERE r.subscription_id = ? AND r.status = 'PENDING' ORDER BY r.scheduled_time, r.id`,
  ).all(subscriptionId) as BillingRecordRow[];
}

export function nextBillingTime(sqlite: Sqlite, subscriptionId: string): number | null {
  const row = prepared(
    sqlite,
    "SELECT min(scheduled_time) AS t FROM billing_records WHERE subscription_id = ? AND status = 'PENDING'",
  ).get(subscriptionId) as { t: number | null };
  return row.t;
}

/** The latest record of a subscription (by creation), whatever its status. */
export function latestRecord(sqlite: Sqlite, subscriptionId: string): BillingRecordRow | undefined {
  return prepared(
    sqlite,
    `SELECT ${RECORD_COLUMNS} FROM billing_records r WHERE r.subscription_id = ? ORDER BY r.created_at DESC, r.id DESC LIMIT 1`,
  ).get(subscriptionId) as BillingRecordRow | undefined;
}

export function getRecord(sqlite: Sqlite, id: string): BillingRecordRow | undefined {
  return prepared(sqlite, `SELECT ${RECORD_COLUMNS} FROM billing_records r WHERE r.id = ?`).get(id) as
    | BillingRecordRow
    | undefined;
}

export function countRecords(sqlite: Sqlite, subscriptionId: string, status: RecordStatus | undefined): number {
  const row = prepared(
    sqlite,
    'SELECT count(*) AS n FROM billing_records WHERE subscription_id = @id AND (@status IS NULL OR status = @status)',
  ).get({ id: subscriptionId, status: status ?? null }) as { n: number };
  return row.n;
}

/** Newest first (creation order), one page. */
export function pageRecords(
  sqlite: Sqlite,
  subscriptionId: string,
  status: RecordStatus | undefined,
  limit: number,
  offset: number,
): BillingRecordRow[] {
  return prepared(
    sqlite,
    `SELECT ${RECORD_COLUMNS} FROM billing_records r WHERE r.subscription_id = @id AND (@status IS NULL OR r.status = @status)
     ORDER BY r.created_at DESC, r.id DESC LIMIT @limit OFFSET @offset`,
  ).all({ id: subscriptionId, status: status ?? null, limit, offset }) as BillingRecordRow[];
}

/** Insert a PENDING record; returns its id. */
export function insertPendingRecord(sqlite: Sqlite, r: NewRecord): string {
  const id = newId('rec', r.now);
  prepared(
    sqlite,
    `INSERT INTO billing_records (id, subscription_id, merchant_id, billing_type, amount, currency, scheduled_time, status,
       retry_count, cycle_index, credit_applied, plan_id, created_at)
     VALUES (@id, @subscriptionId, @merchantId, @billingType, @amount, @currency, @scheduledTime, 'PENDING', @retryCount, @cycleIndex,
       @creditApplied, @planId, @now)`,
  ).run({ id, ...r, creditApplied: r.creditApplied ?? 0, planId: r.planId ?? null });
  return id;
}

/**
 * Cancel the PENDING records of a subscription that no run has claimed yet. A RENEW/RETRY record
 * that has a transaction is a charge under way (or one a killed run left behind): it stays PENDING
 * so its result is recorded (SPEC §6: a charge under way completes) and nothing is scheduled after
 * it. A PENDING INITIAL record (first charge awaiting 3DS) is always cancelled: its page stops.
 */
export function cancelUnclaimedRecords(sqlite: Sqlite, subscriptionId: string): BillingRecordRow[] {
  const rows = prepared(
    sqlite,
    `SELECT ${RECORD_COLUMNS} FROM billing_records r WHERE r.subscription_id = ? AND r.status = 'PENDING' AND (r.transaction_id IS NULL OR r.billing_type = 'INITIAL')`,
  ).all(subscriptionId) as BillingRecordRow[];
  const cancel = prepared(
    sqlite,
    "UPDATE billing_records SET status = 'CANCELLED', lease_owner = NULL, lease_until = NULL WHERE id = ? AND status = 'PENDING'",
  );
  for (const r of rows) cancel.run(r.id);
  return rows;
}

export function setSubscriptionStatus(sqlite: Sqlite, id: string, patch: SubscriptionStatusPatch): void {
  prepared(
    sqlite,
    `UPDATE subscriptions SET status = @status, updated_at = @now,
       end_time = CASE WHEN @setEnd THEN @endTime ELSE end_time END,
       cancel_time = CASE WHEN @setCancel THEN @cancelTime ELSE cancel_time END,
       anchor_time = coalesce(@anchorTime, anchor_time)
     WHERE id = @id`,
  ).run({
    id,
    status: patch.status,
    now: patch.now,
    setEnd: patch.endTime !== undefined ? 1 : 0,
    endTime: patch.endTime ?? null,
    setCancel: patch.cancelTime !== undefined ? 1 : 0,
    cancelTime: patch.cancelTime ?? null,
    anchorTime: patch.anchorTime ?? null,
  });
}

/** A full record row (a first charge's INITIAL record, which carries its transaction from the start). */
export function insertBillingRecord(sqlite: Sqlite, r: BillingRecordRow): void {
  prepared(sqlite, insertRow(billingRecords)).run(r);
}

/** A first charge's INITIAL record settles once; false when it was no longer PENDING (cancelled meanwhile). */
export function settleFirstRecord(
  sqlite: Sqlite,
  id: string,
  status: 'SUCCESS' | 'FAILED',
  failReason: string | null,
  now: number,
): boolean {
  return (
    prepared(
      sqlite,
      `UPDATE billing_records SET status = @status, fail_reason = @failReason, actual_time = @now
       WHERE id = @id AND status = 'PENDING'`,
    ).run({ id, status, failReason, now }).changes === 1
  );
}

/** A subscription moves to another plan (a plan change now, or one at period end applied by its renewal). */
export function applyPlanChange(sqlite: Sqlite, id: string, c: PlanSwitch): void {
  prepared(
    sqlite,
    `UPDATE subscriptions SET plan_id = @planId, amount = @amount, cycle_type = @cycleType, cycle_length = @cycleLength,
       anchor_time = @anchorTime, paid_through = @paidThrough, credit = @credit, pending_plan_id = NULL, updated_at = @now
     WHERE id = @id`,
  ).run({ id, ...c });
}

export function setPendingPlan(sqlite: Sqlite, id: string, planId: string | null, now: number): void {
  prepared(sqlite, 'UPDATE subscriptions SET pending_plan_id = ?, updated_at = ? WHERE id = ?').run(planId, now, id);
}

/** Spend carried credit (never below zero). */
export function spendCredit(sqlite: Sqlite, id: string, amount: number, now: number): void {
  prepared(sqlite, 'UPDATE subscriptions SET credit = max(0, credit - ?), updated_at = ? WHERE id = ?').run(
    amount,
    now,
    id,
  );
}

/** Re-price a PENDING record no run has claimed yet; false when it is claimed or settled. */
export function repriceRecord(sqlite: Sqlite, id: string, p: RecordPrice): boolean {
  return (
    prepared(
      sqlite,
      `UPDATE billing_records SET plan_id = @planId, amount = @amount, credit_applied = @creditApplied
       WHERE id = @id AND status = 'PENDING' AND transaction_id IS NULL`,
    ).run({ id, ...p }).changes === 1
  );
}

/** See Reads.openCardCheckId. */
export function openCardCheckId(sqlite: Sqlite, subscriptionId: string): string | undefined {
  const row = prepared(
    sqlite,
    `SELECT id FROM transactions
     WHERE subscription_id = ? AND payment_type = 'CARD_CHECK' AND status IN (100000, 100040)
     ORDER BY created_at DESC LIMIT 1`,
  ).get(subscriptionId) as { id: string } | undefined;
  return row?.id;
}

/** See Tx.countCardLinkCheck. */
export function countCardLinkCheck(sqlite: Sqlite, id: string): void {
  prepared(sqlite, 'UPDATE subscriptions SET card_update_checks = card_update_checks + 1 WHERE id = ?').run(id);
}

/** The subscription a card-update page token belongs to. */
export function getSubscriptionByCardToken(sqlite: Sqlite, token: string): SubscriptionRow | undefined {
  return prepared(sqlite, `SELECT ${SUBSCRIPTION_COLUMNS} FROM subscriptions s WHERE s.card_update_token = ?`).get(
    token,
  ) as SubscriptionRow | undefined;
}

export function setSubscriptionCard(sqlite: Sqlite, id: string, cardId: string, now: number): void {
  prepared(sqlite, 'UPDATE subscriptions SET card_id = ?, updated_at = ? WHERE id = ?').run(cardId, now, id);
}

export function setCardUpdateToken(sqlite: Sqlite, id: string, token: string | null, expiresAt: number | null): void {
  prepared(
    sqlite,
    'UPDATE subscriptions SET card_update_token = ?, card_update_expires_at = ?, card_update_checks = 0 WHERE id = ?',
  ).run(token, expiresAt, id);
}

/** Move a PENDING record no run has claimed to `scheduledTime`; false when it is claimed or settled. */
export function rescheduleRecord(sqlite: Sqlite, id: string, scheduledTime: number): boolean {
  return (
    prepared(
      sqlite,
      "UPDATE billing_records SET scheduled_time = ? WHERE id = ? AND status = 'PENDING' AND transaction_id IS NULL",
    ).run(scheduledTime, id).changes === 1
  );
}

/** CHANGE records still PENDING created before `before`: a plan change whose request died between its charge and its record. */
export function stalePendingChanges(sqlite: Sqlite, before: number, limit: number): string[] {
  return (
    prepared(
      sqlite,
      // A CHANGE record is scheduled when it is created and never moved (it has its transaction
      // from the start): the bound on scheduled_time is the same condition, and lets the due index
      // skip every record scheduled later (a million future renewals cost nothing).
      "SELECT id FROM billing_records INDEXED BY billing_records_due WHERE status = 'PENDING' AND scheduled_time < ? AND billing_type = 'CHANGE' AND created_at < ? ORDER BY scheduled_time LIMIT ?",
    ).all(before, before, limit) as { id: string }[]
  ).map((r) => r.id);
}
