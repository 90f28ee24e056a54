import type {
  IdempotencyRow,
  IdempotencyScope,
  NewIdempotency,
  TransactionFilter,
  TransactionRow,
  UnrecordedCharge,
} from '../store.js';
import { transactions } from '../tables/index.js';
import { insertRow, patchKeys, selectFrom, selectList, setList, tableText } from '../tables/rows.js';
import { releaseCouponRedemption } from './coupons.js';
import type { Db } from './db.js';

const SELECT = selectFrom(transactions, 't');
// Whole texts kept: a text built per call is a new string for the engine's statement cache to hash.
const BY_ID = `${SELECT} WHERE t.id = @id`;
const BY_RELATION = `${SELECT} WHERE t.merchant_id = @merchantId AND t.relation_id = @relationId`;
const INSERT = insertRow(transactions);

export async function insertTransaction(db: Db, row: TransactionRow): Promise<void> {
  await db.run(INSERT, row);
}

export function getTransaction(db: Db, id: string): Promise<TransactionRow | undefined> {
  return db.get(BY_ID, { id });
}

/** The row held until the unit of work ends: read-then-write decisions hold across instances. */
export function lockTransaction(db: Db, id: string): Promise<TransactionRow | undefined> {
  return db.get(`${SELECT} WHERE t.id = @id${db.dialect.forUpdate}`, { id });
}

/** Another merchant's transaction reads as absent (SPEC §2). */
export function getMerchantTransaction(db: Db, merchantId: string, id: string): Promise<TransactionRow | undefined> {
  return db.get(`${SELECT} WHERE t.id = @id AND t.merchant_id = @merchantId`, { id, merchantId });
}

export function getByRelation(db: Db, merchantId: string, relationId: string): Promise<TransactionRow | undefined> {
  return db.get(BY_RELATION, { merchantId, relationId });
}

export function getByPageToken(db: Db, token: string): Promise<TransactionRow | undefined> {
  return db.get(`${SELECT} WHERE t.page_token = @token`, { token });
}

/** The conditional UPDATE of each patch shape (a fixed set of keys), and with RETURNING, made once. */
const conditionalUpdate = (keys: readonly string[], returning: boolean): string =>
  tableText(transactions, `update-if ${returning} ${keys.join(',')}`, () => {
    const update = `UPDATE transactions SET ${setList(keys)} WHERE id = @id AND status = @fromStatus`;
    return returning ? `${update} RETURNING ${selectList(transactions)}` : update;
  });

/**
 * Apply `patch` only while the transaction is still in `fromStatus`, in one statement: the guard
 * that makes every state change happen once (on PostgreSQL a concurrent writer waits for the row
 * lock and the status is checked again against the committed row). On PostgreSQL the row as
 * changed comes back with the answer, so the caller's next read of it needs no round trip.
 */
export async function updateTransactionIf(
  db: Db,
  id: string,
  fromStatus: number,
  patch: Partial<Omit<TransactionRow, 'id'>>,
): Promise<{ updated: boolean; row?: TransactionRow }> {
  const keys = patchKeys(transactions, patch);
  if (keys.length === 0) {
    const found = await db.get('SELECT 1 AS one FROM transactions WHERE id = @id AND status = @fromStatus', {
      id,
      fromStatus,
    });
    return { updated: found !== undefined };
  }
  const args = { ...patch, id, fromStatus };
  if (db.dialect.name === 'postgres') {
    const row = await db.get<TransactionRow>(conditionalUpdate(keys, true), args);
    return row ? { updated: true, row } : { updated: false };
  }
  // SQLite has no use for the row: nothing there keeps it for the next read (it costs a read).
  return { updated: (await db.run(conditionalUpdate(keys, false), args)) > 0 };
}

/** Open 3DS / checkout sessions past their expiry (partial index transactions_open_pages). */
export async function stalePageIds(db: Db, now: number, limit: number): Promise<string[]> {
  const rows = await db.all<{ id: string }>(
    'SELECT id FROM transactions WHERE status IN (100040, 100050) AND page_expires_at <= @now ORDER BY page_expires_at LIMIT @limit',
    { now, limit },
  );
  return rows.map((r) => r.id);
}

export function listTransactionRows(db: Db, f: TransactionFilter): Promise<TransactionRow[]> {
  const where: string[] = [];
  if (f.merchantId !== undefined) where.push('t.merchant_id = @merchantId');
  if (f.status !== undefined) where.push('t.status = @status');
  return db.all(
    `${SELECT} ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
     ORDER BY t.created_at DESC, ${db.dialect.bytewise('t.id')} DESC LIMIT @limit`,
    { merchantId: f.merchantId, status: f.status, limit: f.limit },
  );
}

/** The subscription code for a subscription's first charge, shown in its responses. */
export async function subscriptionCodeOf(db: Db, subscriptionId: string): Promise<string | undefined> {
  return (
    await db.get<{ code: string }>('SELECT code FROM subscriptions WHERE id = @subscriptionId', { subscriptionId })
  )?.code;
}

// ---- requestId idempotency (SPEC §5): only a keyed fingerprint of the request is stored (vault/fingerprint.ts).

export function getIdempotency(
  db: Db,
  merchantId: string,
  scope: IdempotencyScope,
  requestId: string,
): Promise<IdempotencyRow | undefined> {
  return db.get(
    `SELECT request_hash AS "requestHash", resource_id AS "resourceId" FROM idempotency_keys
     WHERE merchant_id = @merchantId AND scope = @scope AND request_id = @requestId`,
    { merchantId, scope, requestId },
  );
}

/**
 * A plain INSERT: on PostgreSQL a concurrent duplicate waits on the primary key, then fails with
 * a unique violation, and `Store.transaction` runs its unit of work again, which then reads the
 * winner's row.
 */
export async function insertIdempotency(db: Db, row: NewIdempotency): Promise<void> {
  await db.run(
    `INSERT INTO idempotency_keys (merchant_id, scope, request_id, request_hash, resource_id, created_at)
     VALUES (@merchantId, @scope, @requestId, @requestHash, @resourceId, @now)`,
    { ...row },
  );
}

// ---- The charge lease of an ACCEPTED transaction (see services/transactions/create.ts).

/**
 * While a transaction is ACCEPTED with no channel result yet, `updated_at` is the start of the
 * charge under way. A repeat of the request may take the charge over (re-driving it through the
 * channel's idempotency) only once that charge is older than the lease, or was released because
 * the channel threw. Conditional, so exactly one caller takes it.
 */
export async function claimCharge(db: Db, id: string, now: number, leaseMs: number): Promise<boolean> {
  return (
    (await db.run(
      'UPDATE transactions SET updated_at = @now WHERE id = @id AND status = 100000 AND channel_ref IS NULL AND updated_at <= @stale',
      { id, now, stale: now - leaseMs },
    )) === 1
  );
}

/** The channel threw: let the next repeat of the request re-drive the charge at once. */
export async function releaseCharge(db: Db, id: string, now: number, leaseMs: number): Promise<void> {
  await db.run(
    'UPDATE transactions SET updated_at = @stale WHERE id = @id AND status = 100000 AND channel_ref IS NULL',
    {
      id,
      stale: now - leaseMs,
    },
  );
}

/** The final result of a renewal charge on its transaction row. */
export async function finishRenewalTransaction(
  db: Db,
  id: string,
  r: { approved: boolean; failReason: string | null; channelRef: string | null; now: number },
): Promise<void> {
  await db.run(
    `UPDATE transactions SET status = CASE WHEN @ok = 1 THEN 200000 ELSE 300000 END, fail_reason = CAST(@failReason AS TEXT),
       channel_ref = coalesce(CAST(@ref AS TEXT), channel_ref),
       txn_amount = CASE WHEN @ok = 1 THEN amount ELSE txn_amount END,
       txn_currency = CASE WHEN @ok = 1 THEN currency ELSE txn_currency END,
       txn_time = @now, updated_at = @now
     WHERE id = @id`,
    { id, ok: r.approved ? 1 : 0, failReason: r.failReason, ref: r.channelRef, now: r.now },
  );
}

/**
 * A page whose card or 3DS answer is being sent to the channel: push its expiry to at least
 * `until`, while it is still open and unexpired, so the expiry sweep cannot close it under a
 * charge in flight, and hold it for the charge until `until` (chargeHeldUntil), so no cancel can
 * either. False when it is no longer open (expired, finished, or another submit won).
 */
export async function holdPage(db: Db, id: string, openStatus: number, now: number, until: number): Promise<boolean> {
  return (
    (await db.run(
      `UPDATE transactions SET page_expires_at = ${db.dialect.greatest('page_expires_at', 'CAST(@until AS BIGINT)')},
         charge_held_until = @until
       WHERE id = @id AND status = @openStatus AND page_expires_at > @now`,
      { id, openStatus, now, until },
    )) === 1
  );
}

/**
 * A cancelled subscription's open first charge ends (its page stops working); false when it was
 * not open, or when its card is being charged: a charge under way completes and its result is
 * recorded (SPEC §6), whether the processor has it (100000) or the page's submit does (the hold).
 */
export async function closeOpenCharge(db: Db, id: string, status: number, now: number): Promise<boolean> {
  return (
    (await db.run(
      `UPDATE transactions SET status = @status, page_token = NULL, page_expires_at = NULL, txn_time = @now, updated_at = @now
       WHERE id = @id AND status IN (100040, 100050) AND (charge_held_until IS NULL OR charge_held_until <= @now)`,
      { id, status, now },
    )) === 1
  );
}

/**
 * A PAY or a SUBSCRIPTION's first charge the channel refused to run (revoked key): the row and its
 * requestId go, as if the request had never come — for a SUBSCRIPTION also the INCOMPLETE
 * subscription it made, its INITIAL record, its card row and its place on the plan — so the same
 * request can be sent again once the merchant's key is fixed.
 */
export async function discardUncharged(db: Db, id: string): Promise<boolean> {
  const lock = db.dialect.forUpdate;
  const row = await db.get<{ paymentType: string; subscriptionId: string | null }>(
    `SELECT payment_type AS "paymentType", subscription_id AS "subscriptionId" FROM transactions
     WHERE id = @id AND status = 100000 AND channel_ref IS NULL AND payment_type IN ('PAY', 'SUBSCRIPTION')${lock}`,
    { id },
  );
  if (!row) return false;
  let sub: { planId: string; cardId: string | null; couponId: string | null } | undefined;
  if (row.paymentType === 'SUBSCRIPTION') {
    // Only the subscription this request made and nothing else touched (still INCOMPLETE).
    sub = await db.get<{ planId: string; cardId: string | null; couponId: string | null }>(
      `SELECT plan_id AS "planId", card_id AS "cardId", coupon_id AS "couponId" FROM subscriptions
       WHERE id = @sid AND status = 'INCOMPLETE' AND initial_transaction_id = @id${lock}`,
      { sid: row.subscriptionId, id },
    );
    if (!sub) return false;
  }
  await db.run('DELETE FROM transactions WHERE id = @id', { id });
  await db.run("DELETE FROM idempotency_keys WHERE scope = 'transaction' AND resource_id = @id", { id });
  if (sub && row.subscriptionId) {
    await db.run('DELETE FROM billing_records WHERE subscription_id = @sid', { sid: row.subscriptionId });
    await db.run('DELETE FROM subscriptions WHERE id = @sid', { sid: row.subscriptionId });
    if (sub.cardId) await db.run('DELETE FROM cards WHERE id = @cid', { cid: sub.cardId });
    await db.run(
      `UPDATE plans SET current_subscriptions = ${db.dialect.greatest('current_subscriptions - 1', '0')} WHERE id = @planId`,
      { planId: sub.planId },
    );
    if (sub.couponId) await releaseCouponRedemption(db, sub.couponId);
  }
  return true;
}

/** Charges a processor left in flight; reads only the partial index transactions_in_flight. */
export async function inFlightChargeIds(db: Db, before: number, limit: number): Promise<string[]> {
  const rows = await db.all<{ id: string }>(
    `SELECT id FROM transactions WHERE status = 100000 AND channel_ref IS NOT NULL AND updated_at <= @before
       AND payment_type <> 'RENEWAL' ORDER BY updated_at LIMIT @limit`,
    { before, limit },
  );
  return rows.map((r) => r.id);
}

/** A Stripe charge by its PaymentIntent id (the partial index transactions_stripe_ref). */
export function getByChannelRef(db: Db, merchantId: string, channelRef: string): Promise<TransactionRow | undefined> {
  return db.get(
    `${SELECT} WHERE t.channel = 'stripe' AND t.channel_ref = @channelRef AND t.merchant_id = @merchantId`,
    {
      merchantId,
      channelRef,
    },
  );
}

/**
 * Customer-present charges started but never recorded (ACCEPTED with no channel result; the
 * process died mid-charge), whose charge lease began at or before `before`, oldest first after
 * `after` (a keyset: rows nobody can settle do not hide the rest). Reads only the partial index
 * transactions_unrecorded. Renewals are left to their own claims' leases.
 */
export function unrecordedCharges(
  db: Db,
  before: number,
  after: UnrecordedCharge,
  limit: number,
): Promise<UnrecordedCharge[]> {
  return db.all<UnrecordedCharge>(
    `SELECT id, updated_at AS "updatedAt" FROM transactions
     WHERE status = 100000 AND channel_ref IS NULL AND updated_at <= @before
       AND (updated_at, id) > (@afterAt, @afterId)
       AND payment_type IN ('PAY', 'SUBSCRIPTION', 'CARD_CHECK')
     ORDER BY updated_at, id LIMIT @limit`,
    { before, afterAt: after.updatedAt, afterId: after.id, limit },
  );
}
