import { newId } from '../../domain/ids.js';
import type {
  SubscriptionCoupon,
  NewRecord,
  PlanSwitch,
  SubscriptionFilter,
  SubscriptionListRow,
  SubscriptionRow,
  SubscriptionStatusPatch,
} from '../store.js';
import { subscriptions } from '../tables/index.js';
import { insertRow, selectList } from '../tables/rows.js';
import type { Db } from './db.js';

/** Subscription statements of the lifecycle services and the renewal run (billing records: records.ts). */

const COLUMNS = selectList(subscriptions, 's');

/** A subscription of this merchant; another merchant's reads as absent (SPEC §2). */
export function getSubscription(db: Db, merchantId: string, id: string): Promise<SubscriptionRow | undefined> {
  return db.get(`SELECT ${COLUMNS} FROM subscriptions s WHERE s.id = @id AND s.merchant_id = @merchantId`, {
    id,
    merchantId,
  });
}

/** The row held until the unit of work ends (see Store: locking reads). */
export function lockSubscription(db: Db, merchantId: string, id: string): Promise<SubscriptionRow | undefined> {
  return db.get(
    `SELECT ${COLUMNS} FROM subscriptions s WHERE s.id = @id AND s.merchant_id = @merchantId${db.dialect.forUpdate}`,
    { id, merchantId },
  );
}

export function getSubscriptionById(db: Db, id: string): Promise<SubscriptionRow | undefined> {
  return db.get(`SELECT ${COLUMNS} FROM subscriptions s WHERE s.id = @id`, { id });
}

export function getSubscriptionByCode(db: Db, merchantId: string, code: string): Promise<SubscriptionRow | undefined> {
  return db.get(`SELECT ${COLUMNS} FROM subscriptions s WHERE s.code = @code AND s.merchant_id = @merchantId`, {
    code,
    merchantId,
  });
}

/** Newest first; userId optional (the CLI lists a merchant's latest subscriptions). */
export function listSubscriptionRows(
  db: Db,
  merchantId: string,
  filter: SubscriptionFilter,
): Promise<SubscriptionListRow[]> {
  return db.all(
    `SELECT ${COLUMNS}, p.name AS "planName", p.description AS "planDescription",
      (SELECT min(b.scheduled_time) FROM billing_records b WHERE b.subscription_id = s.id AND b.status = 'PENDING') AS "nextBillingTime"
    FROM subscriptions s JOIN plans p ON p.id = s.plan_id
    WHERE s.merchant_id = @merchantId AND (CAST(@userId AS TEXT) IS NULL OR s.user_id = CAST(@userId AS TEXT))
      AND (CAST(@status AS TEXT) IS NULL OR s.status = CAST(@status AS TEXT))
    ORDER BY s.created_at DESC, ${db.dialect.bytewise('s.id')} DESC LIMIT @limit`,
    {
      merchantId,
      userId: filter.userId ?? null,
      status: filter.status ?? null,
      limit: filter.limit ?? db.dialect.unlimited,
    },
  );
}

/** By code or id, optionally of one merchant only. */
export async function findSubscriptionId(
  db: Db,
  ref: string,
  merchantId: string | undefined,
): Promise<string | undefined> {
  const row = await db.get<{ id: string }>(
    `SELECT id FROM subscriptions WHERE (code = @ref OR id = @ref)
       AND (CAST(@merchantId AS TEXT) IS NULL OR merchant_id = CAST(@merchantId AS TEXT)) LIMIT 1`,
    { ref, merchantId: merchantId ?? null },
  );
  return row?.id;
}

export async function insertSubscription(db: Db, row: SubscriptionRow): Promise<void> {
  await db.run(insertRow(subscriptions), row);
}

/** A charge under way when the subscription was cancelled still counts, but only INCOMPLETE becomes ACTIVE. */
export async function activateSubscription(
  db: Db,
  id: string,
  a: { paidThrough: number; amount: number; now: number },
): Promise<boolean> {
  const activated =
    (await db.run(
      `UPDATE subscriptions SET status = 'ACTIVE', paid_through = @paidThrough, billing_count = billing_count + 1,
         total_paid = total_paid + CAST(@amount AS BIGINT), status_changed_at = @now, updated_at = @now
       WHERE id = @id AND status = 'INCOMPLETE'`,
      { id, ...a },
    )) === 1;
  if (!activated) {
    await db.run(
      `UPDATE subscriptions SET billing_count = billing_count + 1, total_paid = total_paid + CAST(@amount AS BIGINT),
         updated_at = @now WHERE id = @id`,
      { id, amount: a.amount, now: a.now },
    );
  }
  return activated;
}

/** Count one renewal charge (SPEC §6): its amount if approved, a failure if not, paid_through moved forward. */
export async function addChargeToSubscription(
  db: Db,
  id: string,
  c: { approved: boolean; amount: number; paidThrough: number | null; now: number },
): Promise<void> {
  // A CASE, not greatest/max: one text for both engines, so this per-renewal statement is not rebuilt per call.
  await db.run(
    `UPDATE subscriptions SET billing_count = billing_count + @ok, failed_count = failed_count + (1 - @ok),
       total_paid = total_paid + CASE WHEN @ok = 1 THEN CAST(@amount AS BIGINT) ELSE 0 END,
       paid_through = CASE WHEN @ok = 0 OR CAST(@paidThrough AS BIGINT) IS NULL THEN paid_through
                           WHEN paid_through > CAST(@paidThrough AS BIGINT) THEN paid_through
                           ELSE CAST(@paidThrough AS BIGINT) END,
       updated_at = @now
     WHERE id = @id`,
    { id, ok: c.approved ? 1 : 0, amount: c.amount, paidThrough: c.paidThrough, now: c.now },
  );
}

/** An INCOMPLETE subscription whose first charge never finished (its page expired). */
export async function expireSubscription(db: Db, id: string, now: number): Promise<boolean> {
  return (
    (await db.run(
      `UPDATE subscriptions SET status = 'EXPIRED', end_time = @now, failed_count = failed_count + 1,
         status_changed_at = @now, updated_at = @now
       WHERE id = @id AND status = 'INCOMPLETE'`,
      { id, now },
    )) === 1
  );
}

/** status_changed_at moves only when the status does (a resume of a claimed charge may write ACTIVE again). */
export async function setSubscriptionStatus(db: Db, id: string, patch: SubscriptionStatusPatch): Promise<void> {
  await db.run(
    `UPDATE subscriptions SET status = @status, updated_at = @now,
       status_changed_at = CASE WHEN status = @status THEN status_changed_at ELSE @now END,
       end_time = CASE WHEN @setEnd = 1 THEN CAST(@endTime AS BIGINT) ELSE end_time END,
       cancel_time = CASE WHEN @setCancel = 1 THEN CAST(@cancelTime AS BIGINT) ELSE cancel_time END,
       anchor_time = coalesce(CAST(@anchorTime AS BIGINT), anchor_time)
     WHERE id = @id`,
    {
      id,
      status: patch.status,
      now: patch.now,
      setEnd: patch.endTime !== undefined ? 1 : 0,
      endTime: patch.endTime ?? null,
      setCancel: patch.cancelTime !== undefined ? 1 : 0,
      cancelTime: patch.cancelTime ?? null,
      anchorTime: patch.anchorTime ?? null,
    },
  );
}

/** A subscription moves to another plan (a plan change now, or one at period end applied by its renewal). */
export async function applyPlanChange(db: Db, id: string, c: PlanSwitch): Promise<void> {
  await db.run(
    `UPDATE subscriptions SET plan_id = @planId, amount = @amount, cycle_type = @cycleType, cycle_length = @cycleLength,
       anchor_time = @anchorTime, paid_through = @paidThrough, credit = @credit, pending_plan_id = NULL, updated_at = @now
     WHERE id = @id`,
    { id, ...c },
  );
}

export async function setPendingPlan(db: Db, id: string, planId: string | null, now: number): Promise<void> {
  await db.run('UPDATE subscriptions SET pending_plan_id = @planId, updated_at = @now WHERE id = @id', {
    id,
    planId,
    now,
  });
}

/** Spend carried credit (never below zero). */
export async function spendCredit(db: Db, id: string, amount: number, now: number): Promise<void> {
  await db.run(
    `UPDATE subscriptions SET credit = ${db.dialect.greatest('0', 'credit - CAST(@amount AS BIGINT)')}, updated_at = @now
     WHERE id = @id`,
    { id, amount, now },
  );
}

export async function setSubscriptionCoupon(db: Db, id: string, c: SubscriptionCoupon, now: number): Promise<void> {
  await db.run(
    `UPDATE subscriptions SET coupon_id = @couponId, coupon_code = @couponCode, coupon_taken_at = @couponTakenAt,
       coupon_cycles_used = 0, updated_at = @now WHERE id = @id`,
    { id, ...c, now },
  );
}

export async function setCouponCyclesUsed(db: Db, id: string, cyclesUsed: number, now: number): Promise<void> {
  await db.run('UPDATE subscriptions SET coupon_cycles_used = @cyclesUsed, updated_at = @now WHERE id = @id', {
    id,
    cyclesUsed,
    now,
  });
}

/** See Reads.openCardCheckId (the partial index transactions_card_checks). */
export async function openCardCheckId(db: Db, subscriptionId: string): Promise<string | undefined> {
  const row = await db.get<{ id: string }>(
    `SELECT id FROM transactions
     WHERE subscription_id = @subscriptionId AND payment_type = 'CARD_CHECK' AND status IN (100000, 100040)
     ORDER BY created_at DESC LIMIT 1`,
    { subscriptionId },
  );
  return row?.id;
}

/** See Tx.countCardLinkCheck. */
export async function countCardLinkCheck(db: Db, id: string): Promise<void> {
  await db.run('UPDATE subscriptions SET card_update_checks = card_update_checks + 1 WHERE id = @id', { id });
}

/** The subscription a card-update page token belongs to, whatever its state. */
export function getSubscriptionByCardToken(db: Db, token: string): Promise<SubscriptionRow | undefined> {
  return db.get(`SELECT ${COLUMNS} FROM subscriptions s WHERE s.card_update_token = @token`, { token });
}

export async function setSubscriptionCard(db: Db, id: string, cardId: string, now: number): Promise<void> {
  await db.run('UPDATE subscriptions SET card_id = @cardId, updated_at = @now WHERE id = @id', { id, cardId, now });
}

export async function setCardUpdateToken(
  db: Db,
  id: string,
  token: string | null,
  expiresAt: number | null,
): Promise<void> {
  await db.run(
    'UPDATE subscriptions SET card_update_token = @token, card_update_expires_at = @expiresAt, card_update_checks = 0 WHERE id = @id',
    {
      id,
      token,
      expiresAt,
    },
  );
}

export const INSERT_PENDING_RECORD = `INSERT INTO billing_records (id, subscription_id, merchant_id, billing_type, amount,
     currency, scheduled_time, status, retry_count, cycle_index, credit_applied, plan_id, coupon_code, discount_amount, created_at)
   VALUES (@id, @subscriptionId, @merchantId, @billingType, @amount, @currency, @scheduledTime, 'PENDING', @retryCount, @cycleIndex,
     @creditApplied, @planId, @couponCode, @discountAmount, @now)`;

/** A new PENDING record's parameters for INSERT_PENDING_RECORD, its id made here. */
export function pendingRecordArgs(r: NewRecord): PendingRecordArgs {
  return {
    id: newId('rec', r.now),
    subscriptionId: r.subscriptionId,
    merchantId: r.merchantId,
    billingType: r.billingType,
    amount: r.amount,
    currency: r.currency,
    scheduledTime: r.scheduledTime,
    retryCount: r.retryCount,
    cycleIndex: r.cycleIndex,
    creditApplied: r.creditApplied ?? 0,
    planId: r.planId ?? null,
    couponCode: r.couponCode ?? null,
    discountAmount: r.discountAmount ?? 0,
    now: r.now,
  };
}

export type PendingRecordArgs = Required<{ [K in keyof NewRecord]: Exclude<NewRecord[K], undefined> }> & { id: string };

/** The INSERT of a new PENDING record, sent; its id at once, its answer in `write` (PostgreSQL defers it). */
export function sendPendingRecord(db: Db, r: NewRecord): { id: string; write: Promise<number> } {
  const args = pendingRecordArgs(r);
  return { id: args.id, write: db.run(INSERT_PENDING_RECORD, { ...args }) };
}
