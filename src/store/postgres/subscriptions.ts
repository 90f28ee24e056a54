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
import { billingRecords, subscriptions } from '../tables/index.js';
import { insertRow, selectList } from '../tables/rows.js';
import { all, get, run, type Conn } from './query.js';

/** Subscription and billing-record statements of the lifecycle services and the renewal run. */

const SUBSCRIPTION_COLUMNS = selectList(subscriptions, 's');
const RECORD_COLUMNS = selectList(billingRecords, 'r');

export function getSubscription(db: Conn, merchantId: string, id: string): Promise<SubscriptionRow | undefined> {
  return get(
    db,
    `SELECT ${SUBSCRIPTION_COLUMNS} FROM subscriptions s WHERE s.id = @id AND s.merchant_id = @merchantId`,
    { id, merchantId },
  );
}

/** The row locked until the unit of work ends. */
export function lockSubscription(db: Conn, merchantId: string, id: string): Promise<SubscriptionRow | undefined> {
  return get(
    db,
    `SELECT ${SUBSCRIPTION_COLUMNS} FROM subscriptions s WHERE s.id = @id AND s.merchant_id = @merchantId FOR UPDATE`,
    {
      id,
      merchantId,
    },
  );
}

export function getSubscriptionById(db: Conn, id: string): Promise<SubscriptionRow | undefined> {
  return get(db, `SELECT ${SUBSCRIPTION_COLUMNS} FROM subscriptions s WHERE s.id = @id`, { id });
}

export function getSubscriptionByCode(
  db: Conn,
  merchantId: string,
  code: string,
): Promise<SubscriptionRow | undefined> {
  return get(
    db,
    `SELECT ${SUBSCRIPTION_COLUMNS} FROM subscriptions s WHERE s.code = @code AND s.merchant_id = @merchantId`,
    {
      code,
      merchantId,
    },
  );
}

export function listSubscriptionRows(
  db: Conn,
  merchantId: string,
  filter: SubscriptionFilter,
): Promise<SubscriptionListRow[]> {
  return all(
    db,
    `SELECT ${SUBSCRIPTION_COLUMNS}, p.name AS "planName", p.description AS "planDescription",
      (SELECT min(b.scheduled_time) FROM billing_records b WHERE b.subscription_id = s.id AND b.status = 'PENDING') AS "nextBillingTime"
    FROM subscriptions s JOIN plans p ON p.id = s.plan_id
    WHERE s.merchant_id = @merchantId AND (@userId::text IS NULL OR s.user_id = @userId::text)
      AND (@status::text IS NULL OR s.status = @status::text)
    ORDER BY s.created_at DESC, s.id COLLATE "C" DESC LIMIT @limit::bigint`,
    { merchantId, userId: filter.userId ?? null, status: filter.status ?? null, limit: filter.limit ?? null },
  );
}

export async function findSubscriptionId(
  db: Conn,
  ref: string,
  merchantId: string | undefined,
): Promise<string | undefined> {
  const row = await get<{ id: string }>(
    db,
    'SELECT id FROM subscriptions WHERE (code = @ref OR id = @ref) AND (@merchantId::text IS NULL OR merchant_id = @merchantId::text) LIMIT 1',
    { ref, merchantId: merchantId ?? null },
  );
  return row?.id;
}

export async function insertSubscription(db: Conn, row: SubscriptionRow): Promise<void> {
  await run(db, insertRow(subscriptions), row);
}

export async function activateSubscription(
  db: Conn,
  id: string,
  a: { paidThrough: number; amount: number; now: number },
): Promise<boolean> {
  const activated =
    (await run(
      db,
      `UPDATE subscriptions SET status = 'ACTIVE', paid_through = @paidThrough, billing_count = billing_count + 1,
         total_paid = total_paid + @amount::bigint, updated_at = @now WHERE id = @id AND status = 'INCOMPLETE'`,
      { id, ...a },
    )) === 1;
  if (!activated) {
    await run(
      db,
      'UPDATE subscriptions SET billing_count = billing_count + 1, total_paid = total_paid + @amount::bigint, updated_at = @now WHERE id = @id',
      {
        id,
        amount: a.amount,
        now: a.now,
      },
    );
  }
  return activated;
}

export async function expireSubscription(db: Conn, id: string, now: number): Promise<boolean> {
  return (
    (await run(
      db,
      `UPDATE subscriptions SET status = 'EXPIRED', end_time = @now, failed_count = failed_count + 1, updated_at = @now
       WHERE id = @id AND status = 'INCOMPLETE'`,
      { id, now },
    )) === 1
  );
}

export function pendingRecords(db: Conn, subscriptionId: string): Promise<BillingRecordRow[]> {
  return all(
    db,
    `SELECT ${RECORD_COLUMNS} FROM billing_records r WHERE r.subscription_id = @subscriptionId AND r.status = 'PENDING'
     ORDER BY r.scheduled_time, r.id COLLATE "C"`,
    { subscriptionId },
  );
}

export async function nextBillingTime(db: Conn, subscriptionId: string): Promise<number | null> {
  const row = await get<{ t: number | null }>(
    db,
    "SELECT min(scheduled_time) AS t FROM billing_records WHERE subscription_id = @subscriptionId AND status = 'PENDING'",
    { subscriptionId },
  );
  return row?.t ?? null;
}

export function latestRecord(db: Conn, subscriptionId: string): Promise<BillingRecordRow | undefined> {
  return get(
    db,
    `SELECT ${RECORD_COLUMNS} FROM billing_records r WHERE r.subscription_id = @subscriptionId
     ORDER BY r.created_at DESC, r.id COLLATE "C" DESC LIMIT 1`,
    { subscriptionId },
  );
}

export function getRecord(db: Conn, id: string): Promise<BillingRecordRow | undefined> {
  return get(db, `SELECT ${RECORD_COLUMNS} FROM billing_records r WHERE r.id = @id`, { id });
}

export async function countRecords(
  db: Conn,
  subscriptionId: string,
  status: RecordStatus | undefined,
): Promise<number> {
  const row = await get<{ n: number }>(
    db,
    'SELECT count(*) AS n FROM billing_records WHERE subscription_id = @id AND (@status::text IS NULL OR status = @status::text)',
    { id: subscriptionId, status: status ?? null },
  );
  return row?.n ?? 0;
}

export function pageRecords(
  db: Conn,
  subscriptionId: string,
  status: RecordStatus | undefined,
  limit: number,
  offset: number,
): Promise<BillingRecordRow[]> {
  return all(
    db,
    `SELECT ${RECORD_COLUMNS} FROM billing_records r WHERE r.subscription_id = @id AND (@status::text IS NULL OR r.status = @status::text)
     ORDER BY r.created_at DESC, r.id COLLATE "C" DESC LIMIT @limit OFFSET @offset`,
    { id: subscriptionId, status: status ?? null, limit, offset },
  );
}

/** The INSERT of a new PENDING record, sent; its id at once, its answer in `write`. */
export function sendPendingRecord(db: Conn, r: NewRecord): { id: string; write: Promise<number> } {
  const id = newId('rec', r.now);
  const write = run(
    db,
    `INSERT INTO billing_records (id, subscription_id, merchant_id, billing_type, amount, currency, scheduled_time, status,
       retry_count, cycle_index, credit_applied, plan_id, created_at)
     VALUES (@id, @subscriptionId, @merchantId, @billingType, @amount, @currency, @scheduledTime, 'PENDING', @retryCount, @cycleIndex,
       @creditApplied, @planId, @now)`,
    { id, ...r, creditApplied: r.creditApplied ?? 0, planId: r.planId ?? null },
  );
  return { id, write };
}

/**
 * Cancel the PENDING records no run has claimed (see the SQLite engine for the rule), in one
 * statement: a record a run claims concurrently keeps its transaction and is not touched.
 */
export function cancelUnclaimedRecords(db: Conn, subscriptionId: string): Promise<BillingRecordRow[]> {
  return all(
    db,
    `UPDATE billing_records r SET status = 'CANCELLED', lease_owner = NULL, lease_until = NULL
     FROM billing_records o
     WHERE o.id = r.id AND r.subscription_id = @subscriptionId AND r.status = 'PENDING'
       AND (r.transaction_id IS NULL OR r.billing_type = 'INITIAL')
     RETURNING ${selectList(billingRecords, 'o')}`,
    { subscriptionId },
  );
}

export async function setSubscriptionStatus(db: Conn, id: string, patch: SubscriptionStatusPatch): Promise<void> {
  await run(
    db,
    `UPDATE subscriptions SET status = @status, updated_at = @now,
       end_time = CASE WHEN @setEnd::boolean THEN @endTime::bigint ELSE end_time END,
       cancel_time = CASE WHEN @setCancel::boolean THEN @cancelTime::bigint ELSE cancel_time END,
       anchor_time = coalesce(@anchorTime::bigint, anchor_time)
     WHERE id = @id`,
    {
      id,
      status: patch.status,
      now: patch.now,
      setEnd: patch.endTime !== undefined,
      endTime: patch.endTime ?? null,
      setCancel: patch.cancelTime !== undefined,
      cancelTime: patch.cancelTime ?? null,
      anchorTime: patch.anchorTime ?? null,
    },
  );
}

export async function insertBillingRecord(db: Conn, r: BillingRecordRow): Promise<void> {
  await run(db, insertRow(billingRecords), r);
}

export async function settleFirstRecord(
  db: Conn,
  id: string,
  status: 'SUCCESS' | 'FAILED',
  failReason: string | null,
  now: number,
): Promise<boolean> {
  return (
    (await run(
      db,
      `UPDATE billing_records SET status = @status, fail_reason = @failReason, actual_time = @now
       WHERE id = @id AND status = 'PENDING'`,
      { id, status, failReason, now },
    )) === 1
  );
}

/** A subscription moves to another plan (a plan change now, or one at period end applied by its renewal). */
export async function applyPlanChange(db: Conn, id: string, c: PlanSwitch): Promise<void> {
  await run(
    db,
    `UPDATE subscriptions SET plan_id = @planId, amount = @amount, cycle_type = @cycleType, cycle_length = @cycleLength,
       anchor_time = @anchorTime, paid_through = @paidThrough, credit = @credit, pending_plan_id = NULL, updated_at = @now
     WHERE id = @id`,
    { id, ...c },
  );
}

export async function setPendingPlan(db: Conn, id: string, planId: string | null, now: number): Promise<void> {
  await run(db, 'UPDATE subscriptions SET pending_plan_id = @planId, updated_at = @now WHERE id = @id', {
    id,
    planId,
    now,
  });
}

/** Spend carried credit (never below zero). */
export async function spendCredit(db: Conn, id: string, amount: number, now: number): Promise<void> {
  await run(
    db,
    'UPDATE subscriptions SET credit = greatest(0, credit - @amount::bigint), updated_at = @now WHERE id = @id',
    {
      id,
      amount,
      now,
    },
  );
}

/** Re-price a PENDING record no run has claimed yet; false when it is claimed or settled. */
export async function repriceRecord(db: Conn, id: string, p: RecordPrice): Promise<boolean> {
  return (
    (await run(
      db,
      `UPDATE billing_records SET plan_id = @planId, amount = @amount, credit_applied = @creditApplied
       WHERE id = @id AND status = 'PENDING' AND transaction_id IS NULL`,
      { id, ...p },
    )) === 1
  );
}

/** See Reads.openCardCheckId. */
export async function openCardCheckId(db: Conn, subscriptionId: string): Promise<string | undefined> {
  const row = await get<{ id: string }>(
    db,
    `SELECT id FROM transactions
     WHERE subscription_id = @subscriptionId AND payment_type = 'CARD_CHECK' AND status IN (100000, 100040)
     ORDER BY created_at DESC LIMIT 1`,
    { subscriptionId },
  );
  return row?.id;
}

/** See Tx.countCardLinkCheck. */
export async function countCardLinkCheck(db: Conn, id: string): Promise<void> {
  await run(db, 'UPDATE subscriptions SET card_update_checks = card_update_checks + 1 WHERE id = @id', { id });
}

/** The subscription a card-update page token belongs to. */
export function getSubscriptionByCardToken(db: Conn, token: string): Promise<SubscriptionRow | undefined> {
  return get(db, `SELECT ${SUBSCRIPTION_COLUMNS} FROM subscriptions s WHERE s.card_update_token = @token`, { token });
}

export async function setSubscriptionCard(db: Conn, id: string, cardId: string, now: number): Promise<void> {
  await run(db, 'UPDATE subscriptions SET card_id = @cardId, updated_at = @now WHERE id = @id', { id, cardId, now });
}

export async function setCardUpdateToken(
  db: Conn,
  id: string,
  token: string | null,
  expiresAt: number | null,
): Promise<void> {
  await run(
    db,
    'UPDATE subscriptions SET card_update_token = @token, card_update_expires_at = @expiresAt, card_update_checks = 0 WHERE id = @id',
    {
      id,
      token,
      expiresAt,
    },
  );
}

/** Move a PENDING record no run has claimed to `scheduledTime`; false when it is claimed or settled. */
export async function rescheduleRecord(db: Conn, id: string, scheduledTime: number): Promise<boolean> {
  return (
    (await run(
      db,
      "UPDATE billing_records SET scheduled_time = @scheduledTime WHERE id = @id AND status = 'PENDING' AND transaction_id IS NULL",
      { id, scheduledTime },
    )) === 1
  );
}

/** CHANGE records still PENDING created before `before`: a plan change whose request died between its charge and its record. */
export async function stalePendingChanges(db: Conn, before: number, limit: number): Promise<string[]> {
  const rows = await all<{ id: string }>(
    db,
    // scheduled_time = created_at for a CHANGE record (see the SQLite engine): the same condition,
    // which the partial due index answers without visiting the future renewals.
    `SELECT id FROM billing_records WHERE status = 'PENDING' AND scheduled_time < @before AND billing_type = 'CHANGE' AND created_at < @before
     ORDER BY scheduled_time, id COLLATE "C" LIMIT @limit`,
    { before, limit },
  );
  return rows.map((r) => r.id);
}
