import { eq } from 'drizzle-orm';
import type { Ctx } from '../app.js';
import { billingTime, trialEnd } from '../domain/calendar.js';
import { PaygateError, RESULT_CODES } from '../domain/errors.js';
import { newId, newSubscriptionCode } from '../domain/ids.js';
import { subscriptionCallbackBody } from '../notify/payloads.js';
import { enqueueEvent } from '../store/outbox.js';
import { deleteCard } from '../store/cards.js';
import type { PlanRow } from '../store/plans.js';
import { prepared } from '../store/prepared.js';
import { billingRecords, subscriptions } from '../store/schema/index.js';
import type { TransactionRow } from '../store/transactions.js';
import { vaultCard, type ValidCard } from '../vault/card.js';

/**
 * The first charge of a subscription (SPEC §6, first rows of the table). Conventions the renewal
 * side relies on:
 *  - anchor_time = start (no trial) or the trial's end;
 *  - a RENEW record's cycle_index n has scheduled_time = billingTime(anchor, cycle, n):
 *    trial → first RENEW is n = 0 (at the anchor), no trial → n = 1; INITIAL has cycle_index 0;
 *  - paid_through = the first RENEW's time once the first charge succeeded;
 *  - billing_count / total_paid count the INITIAL success (a zero trial check counts, for 0);
 *    failed_count counts failed charges;
 *  - plans.current_subscriptions counts INCOMPLETE + ACTIVE + PAUSED: +1 here with ONE conditional
 *    UPDATE (never exceeded under concurrency), −1 when the first charge ends the subscription EXPIRED.
 * Every function here runs INSIDE the caller's database transaction.
 */
export interface FirstCharge {
  subscriptionId: string;
  code: string;
  recordId: string;
  /** The INITIAL charge amount: 0 during a trial (a card check), else the plan price. */
  amount: number;
}

/** Take one place on the plan, or 1009. The WHERE clause is the whole check, so it cannot race. */
export function reservePlanSlot(ctx: Ctx, plan: PlanRow): void {
  const ok =
    prepared(
      ctx.sqlite,
      `UPDATE plans SET current_subscriptions = current_subscriptions + 1
       WHERE id = ? AND status = 'ACTIVE' AND (max_subscriptions = 0 OR current_subscriptions < max_subscriptions)`,
    ).run(plan.id).changes === 1;
  if (!ok) {
    const inactive = plan.status !== 'ACTIVE';
    throw new PaygateError(RESULT_CODES.PLAN_UNAVAILABLE, inactive ? 'plan not available: inactive' : 'plan not available: maxSubscriptions reached');
  }
}

function releasePlanSlot(ctx: Ctx, planId: string): void {
  prepared(ctx.sqlite, 'UPDATE plans SET current_subscriptions = max(current_subscriptions - 1, 0) WHERE id = ?').run(planId);
}

/** Create the INCOMPLETE subscription, its vaulted card and its PENDING INITIAL record. */
export function createFirstCharge(
  ctx: Ctx,
  a: { merchantId: string; plan: PlanRow; userId: string; card: ValidCard; notifyUrl: string | null; txnId: string; now: number },
): FirstCharge {
  reservePlanSlot(ctx, a.plan);
  const { plan, now } = a;
  const cardId = vaultCard(ctx, a.merchantId, a.card, now);
  const subscriptionId = newId('sub', now);
  const code = newSubscriptionCode();
  const anchor = plan.trialDays > 0 ? trialEnd(now, plan.trialDays, ctx.zone) : now;
  prepared(
    ctx.sqlite,
    `INSERT INTO subscriptions (id, code, merchant_id, plan_id, user_id, card_id, amount, currency, cycle_type, cycle_length, status,
       anchor_time, paid_through, start_time, notify_url, initial_transaction_id, billing_count, failed_count, total_paid, created_at, updated_at)
     VALUES (@id, @code, @merchantId, @planId, @userId, @cardId, @amount, @currency, @cycleType, @cycleLength, 'INCOMPLETE',
       @anchor, NULL, @now, @notifyUrl, @txnId, 0, 0, 0, @now, @now)`,
  ).run({
    id: subscriptionId,
    code,
    merchantId: a.merchantId,
    planId: plan.id,
    userId: a.userId,
    cardId,
    amount: plan.price,
    currency: plan.currency,
    cycleType: plan.cycleType,
    cycleLength: plan.cycleLength,
    anchor,
    now,
    notifyUrl: a.notifyUrl,
    txnId: a.txnId,
  });
  const recordId = newId('rec', now);
  const amount = plan.trialDays > 0 ? 0 : plan.price;
  insertRecord(ctx, { id: recordId, subscriptionId, merchantId: a.merchantId, type: 'INITIAL', amount, currency: plan.currency, scheduled: now, cycleIndex: 0, txnId: a.txnId, now });
  return { subscriptionId, code, recordId, amount };
}

function insertRecord(
  ctx: Ctx,
  r: { id: string; subscriptionId: string; merchantId: string; type: 'INITIAL' | 'RENEW'; amount: number; currency: string; scheduled: number; cycleIndex: number; txnId: string | null; now: number },
): void {
  prepared(
    ctx.sqlite,
    `INSERT INTO billing_records (id, subscription_id, merchant_id, billing_type, amount, currency, scheduled_time, status,
       transaction_id, retry_count, cycle_index, created_at)
     VALUES (@id, @subscriptionId, @merchantId, @type, @amount, @currency, @scheduled, 'PENDING', @txnId, 0, @cycleIndex, @now)`,
  ).run(r);
}

function settleInitial(ctx: Ctx, recordId: string, status: 'SUCCESS' | 'FAILED', failReason: string | null, now: number): boolean {
  return prepared(
    ctx.sqlite,
    `UPDATE billing_records SET status = @status, fail_reason = @failReason, actual_time = @now
     WHERE id = @recordId AND status = 'PENDING'`,
  ).run({ recordId, status, failReason, now }).changes === 1;
}

function subscriptionRow(ctx: Ctx, id: string) {
  return ctx.db.select().from(subscriptions).where(eq(subscriptions.id, id)).get();
}

/** The first charge succeeded: INITIAL SUCCESS; an INCOMPLETE subscription becomes ACTIVE with its first RENEW PENDING. */
export function firstChargeSucceeded(ctx: Ctx, txn: TransactionRow, now: number): void {
  if (!txn.subscriptionId || !txn.billingRecordId) return;
  const sub = subscriptionRow(ctx, txn.subscriptionId);
  if (!sub) return;
  settleInitial(ctx, txn.billingRecordId, 'SUCCESS', null, now);
  const trial = sub.anchorTime !== sub.startTime;
  const cycle = { cycleType: sub.cycleType, cycleLength: sub.cycleLength };
  const cycleIndex = trial ? 0 : 1;
  const firstRenew = billingTime(sub.anchorTime, cycle, cycleIndex, ctx.zone);
  // A charge under way when the subscription was cancelled still counts, but schedules nothing (SPEC §6).
  const activated =
    prepared(
      ctx.sqlite,
      `UPDATE subscriptions SET status = 'ACTIVE', paid_through = @firstRenew, billing_count = billing_count + 1,
         total_paid = total_paid + @amount, updated_at = @now WHERE id = @id AND status = 'INCOMPLETE'`,
    ).run({ id: sub.id, firstRenew, amount: txn.amount, now }).changes === 1;
  if (!activated) {
    prepared(ctx.sqlite, 'UPDATE subscriptions SET billing_count = billing_count + 1, total_paid = total_paid + ?, updated_at = ? WHERE id = ?').run(
      txn.amount,
      now,
      sub.id,
    );
    return;
  }
  insertRecord(ctx, {
    id: newId('rec', now),
    subscriptionId: sub.id,
    merchantId: sub.merchantId,
    type: 'RENEW',
    amount: sub.amount,
    currency: sub.currency,
    scheduled: firstRenew,
    cycleIndex,
    txnId: null,
    now,
  });
}

/**
 * The first charge failed (declined, 3DS failed or expired): INITIAL FAILED, the subscription
 * EXPIRED, its card deleted, its plan place released. `notify` adds the SUBSCRIPTION_EXPIRED
 * callback (an INCOMPLETE subscription the merchant was told about).
 */
export function firstChargeFailed(ctx: Ctx, txn: TransactionRow, reason: string, now: number, notify: boolean): void {
  if (!txn.subscriptionId || !txn.billingRecordId) return;
  // A record the merchant already cancelled (subscription cancelled while 3DS was open) is not a failed charge.
  const counted = settleInitial(ctx, txn.billingRecordId, 'FAILED', reason, now);
  const sub = subscriptionRow(ctx, txn.subscriptionId);
  if (!sub) return;
  const expired =
    prepared(
      ctx.sqlite,
      `UPDATE subscriptions SET status = 'EXPIRED', end_time = @now, failed_count = failed_count + 1, updated_at = @now
       WHERE id = @id AND status = 'INCOMPLETE'`,
    ).run({ id: sub.id, now }).changes === 1;
  if (!expired) {
    if (counted) prepared(ctx.sqlite, 'UPDATE subscriptions SET failed_count = failed_count + 1, updated_at = ? WHERE id = ?').run(now, sub.id);
  } else {
    releasePlanSlot(ctx, sub.planId);
  }
  if (sub.cardId) deleteCard(ctx.sqlite, sub.cardId);
  if (notify && expired) {
    const after = subscriptionRow(ctx, sub.id);
    const record = ctx.db.select().from(billingRecords).where(eq(billingRecords.id, txn.billingRecordId)).get();
    if (after && record) {
      enqueueEvent(ctx.sqlite, {
        merchantId: sub.merchantId,
        kind: 'SUBSCRIPTION',
        eventType: 'SUBSCRIPTION_EXPIRED',
        subscriptionId: sub.id,
        transactionId: txn.id,
        notifyUrl: sub.notifyUrl,
        body: subscriptionCallbackBody({ eventType: 'SUBSCRIPTION_EXPIRED', subscription: after, record, nextBillingTime: null, eventTime: now, zone: ctx.zone }),
        now,
      });
    }
  }
}

/** Status of a transaction's subscription (a cancelled one stops its open 3DS page, SPEC §6). */
export function subscriptionStatusOf(ctx: Ctx, subscriptionId: string): string | undefined {
  return (prepared(ctx.sqlite, 'SELECT status FROM subscriptions WHERE id = ?').get(subscriptionId) as { status: string } | undefined)?.status;
}
