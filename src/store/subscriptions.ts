import type { Sqlite } from './client.js';
import { prepared } from './prepared.js';
import type { billingRecords, subscriptions } from './schema/index.js';
import { newId } from '../domain/ids.js';
import type { SubscriptionStatus } from '../domain/subscription-state.js';

/**
 * Subscription and billing-record queries of the lifecycle services and the renewal run.
 * Plain prepared SQL (cached per connection) returning drizzle's row shapes.
 */
export type SubscriptionRow = typeof subscriptions.$inferSelect;
export type BillingRecordRow = typeof billingRecords.$inferSelect;
export type BillingType = BillingRecordRow['billingType'];
export type RecordStatus = BillingRecordRow['status'];

export const SUBSCRIPTION_COLUMNS = `s.id, s.code, s.merchant_id AS merchantId, s.plan_id AS planId, s.user_id AS userId,
  s.card_id AS cardId, s.amount, s.currency, s.cycle_type AS cycleType, s.cycle_length AS cycleLength, s.status,
  s.anchor_time AS anchorTime, s.paid_through AS paidThrough, s.start_time AS startTime, s.end_time AS endTime,
  s.cancel_time AS cancelTime, s.notify_url AS notifyUrl, s.initial_transaction_id AS initialTransactionId,
  s.billing_count AS billingCount, s.failed_count AS failedCount, s.total_paid AS totalPaid,
  s.created_at AS createdAt, s.updated_at AS updatedAt`;

export const RECORD_COLUMNS = `r.id, r.subscription_id AS subscriptionId, r.merchant_id AS merchantId,
  r.billing_type AS billingType, r.amount, r.currency, r.scheduled_time AS scheduledTime, r.actual_time AS actualTime,
  r.status, r.transaction_id AS transactionId, r.fail_reason AS failReason, r.retry_count AS retryCount,
  r.cycle_index AS cycleIndex, r.lease_owner AS leaseOwner, r.lease_until AS leaseUntil, r.created_at AS createdAt`;

/** A subscription of this merchant; another merchant's reads as absent (SPEC §2). */
export function getSubscription(sqlite: Sqlite, merchantId: string, id: string): SubscriptionRow | undefined {
  return prepared(sqlite, `SELECT ${SUBSCRIPTION_COLUMNS} FROM subscriptions s WHERE s.id = ? AND s.merchant_id = ?`).get(id, merchantId) as
    | SubscriptionRow
    | undefined;
}

export function getSubscriptionById(sqlite: Sqlite, id: string): SubscriptionRow | undefined {
  return prepared(sqlite, `SELECT ${SUBSCRIPTION_COLUMNS} FROM subscriptions s WHERE s.id = ?`).get(id) as SubscriptionRow | undefined;
}

export function getSubscriptionByCode(sqlite: Sqlite, merchantId: string, code: string): SubscriptionRow | undefined {
  return prepared(sqlite, `SELECT ${SUBSCRIPTION_COLUMNS} FROM subscriptions s WHERE s.code = ? AND s.merchant_id = ?`).get(code, merchantId) as
    | SubscriptionRow
    | undefined;
}

export interface SubscriptionListRow extends SubscriptionRow {
  planName: string;
  planDescription: string | null;
}

/** Newest first; userId optional (the CLI lists a merchant's latest subscriptions). */
export function listSubscriptionRows(
  sqlite: Sqlite,
  merchantId: string,
  filter: { userId?: string | undefined; status?: SubscriptionStatus | undefined; limit?: number | undefined },
): SubscriptionListRow[] {
  const sql = `SELECT ${SUBSCRIPTION_COLUMNS}, p.name AS planName, p.description AS planDescription
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

export function getPlanInfo(sqlite: Sqlite, planId: string): { name: string; description: string | null } | undefined {
  return prepared(sqlite, 'SELECT name, description FROM plans WHERE id = ?').get(planId) as { name: string; description: string | null } | undefined;
}

/** The PENDING record (at most one per subscription besides an in-flight charge): its time is nextBillingTime. */
export function pendingRecords(sqlite: Sqlite, subscriptionId: string): BillingRecordRow[] {
  return prepared(
    sqlite,
    `SELECT ${RECORD_COLUMNS} FROM billing_records r WHERE r.subscription_id = ? AND r.status = 'PENDING' ORDER BY r.scheduled_time, r.id`,
  ).all(subscriptionId) as BillingRecordRow[];
}

export function nextBillingTime(sqlite: Sqlite, subscriptionId: string): number | null {
  const row = prepared(sqlite, "SELECT min(scheduled_time) AS t FROM billing_records WHERE subscription_id = ? AND status = 'PENDING'").get(
    subscriptionId,
  ) as { t: number | null };
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
  return prepared(sqlite, `SELECT ${RECORD_COLUMNS} FROM billing_records r WHERE r.id = ?`).get(id) as BillingRecordRow | undefined;
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

export interface NewRecord {
  subscriptionId: string;
  merchantId: string;
  billingType: BillingType;
  amount: number;
  currency: string;
  scheduledTime: number;
  retryCount: number;
  cycleIndex: number;
  now: number;
}

/** Insert a PENDING record; returns its id. */
export function insertPendingRecord(sqlite: Sqlite, r: NewRecord): string {
  const id = newId('rec', r.now);
  prepared(
    sqlite,
    `INSERT INTO billing_records (id, subscription_id, merchant_id, billing_type, amount, currency, scheduled_time, status,
       retry_count, cycle_index, created_at)
     VALUES (@id, @subscriptionId, @merchantId, @billingType, @amount, @currency, @scheduledTime, 'PENDING', @retryCount, @cycleIndex, @now)`,
  ).run({ id, ...r });
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
  const cancel = prepared(sqlite, "UPDATE billing_records SET status = 'CANCELLED', lease_owner = NULL, lease_until = NULL WHERE id = ? AND status = 'PENDING'");
  for (const r of rows) cancel.run(r.id);
  return rows;
}

export function setSubscriptionStatus(
  sqlite: Sqlite,
  id: string,
  patch: { status: SubscriptionStatus; now: number; endTime?: number | null; cancelTime?: number | null; anchorTime?: number },
): void {
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

/** plans.currentSubscriptions counts INCOMPLETE + ACTIVE + PAUSED; call when one leaves them. */
export function decrementPlanCount(sqlite: Sqlite, planId: string): void {
  prepared(sqlite, 'UPDATE plans SET current_subscriptions = max(current_subscriptions - 1, 0) WHERE id = ?').run(planId);
}
