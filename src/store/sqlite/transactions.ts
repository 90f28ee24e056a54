import type { IdempotencyRow, IdempotencyScope, NewIdempotency, TransactionFilter, TransactionRow } from '../store.js';
import type { Sqlite } from './client.js';
import { prepared } from './prepared.js';
import { transactions } from '../tables/index.js';
import { insertRow, patchKeys, selectFrom, setList } from '../tables/rows.js';

const SELECT = selectFrom(transactions, 't');

export function insertTransaction(sqlite: Sqlite, row: TransactionRow): void {
  prepared(sqlite, insertRow(transactions)).run(row);
}

export function getTransaction(sqlite: Sqlite, id: string): TransactionRow | undefined {
  return prepared(sqlite, `${SELECT} WHERE t.id = ?`).get(id) as TransactionRow | undefined;
}

/** Another merchant's transaction reads as absent (SPEC §2). */
export function getMerchantTransaction(sqlite: Sqlite, merchantId: string, id: string): TransactionRow | undefined {
  return prepared(sqlite, `${SELECT} WHERE t.id = ? AND t.merchant_id = ?`).get(id, merchantId) as
    | TransactionRow
    | undefined;
}

export function getByRelation(sqlite: Sqlite, merchantId: string, relationId: string): TransactionRow | undefined {
  return prepared(sqlite, `${SELECT} WHERE t.merchant_id = ? AND t.relation_id = ?`).get(merchantId, relationId) as
    | TransactionRow
    | undefined;
}

export function getByPageToken(sqlite: Sqlite, token: string): TransactionRow | undefined {
  return prepared(sqlite, `${SELECT} WHERE t.page_token = ?`).get(token) as TransactionRow | undefined;
}

/**
 * Conditional update: apply `patch` only while the transaction is still in `fromStatus`.
 * Returns whether it applied — the guard that makes every state change happen once.
 */
export function updateTransactionIf(
  sqlite: Sqlite,
  id: string,
  fromStatus: number,
  patch: Partial<Omit<TransactionRow, 'id'>>,
): boolean {
  const keys = patchKeys(transactions, patch);
  const sql = `UPDATE transactions SET ${setList(keys)} WHERE id = @id AND status = @fromStatus`;
  return prepared(sqlite, sql).run({ ...patch, id, fromStatus }).changes === 1;
}

/** Open 3DS / checkout sessions past their expiry (partial index transactions_open_pages). */
export function stalePageIds(sqlite: Sqlite, now: number, limit: number): string[] {
  return (
    prepared(
      sqlite,
      'SELECT id FROM transactions WHERE status IN (100040, 100050) AND page_expires_at <= ? ORDER BY page_expires_at LIMIT ?',
    ).all(now, limit) as { id: string }[]
  ).map((r) => r.id);
}

export function listTransactionRows(sqlite: Sqlite, f: TransactionFilter): TransactionRow[] {
  const where: string[] = [];
  if (f.merchantId !== undefined) where.push('t.merchant_id = @merchantId');
  if (f.status !== undefined) where.push('t.status = @status');
  const sql = `${SELECT} ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY t.created_at DESC, t.id DESC LIMIT @limit`;
  return prepared(sqlite, sql).all({ merchantId: f.merchantId, status: f.status, limit: f.limit }) as TransactionRow[];
}

/** The subscription code for a subscription's first charge, shown in its responses. */
export function subscriptionCodeOf(sqlite: Sqlite, subscriptionId: string): string | undefined {
  return (
    prepared(sqlite, 'SELECT code FROM subscriptions WHERE id = ?').get(subscriptionId) as { code: string } | undefined
  )?.code;
}

// ---- requestId idempotency (SPEC §5): only a keyed fingerprint of the request is stored (vault/fingerprint.ts).

export function getIdempotency(
  sqlite: Sqlite,
  merchantId: string,
  scope: IdempotencyScope,
  requestId: string,
): IdempotencyRow | undefined {
  return prepared(
    sqlite,
    `SELECT request_hash AS requestHash, resource_id AS resourceId FROM idempotency_keys
     WHERE merchant_id = ? AND scope = ? AND request_id = ?`,
  ).get(merchantId, scope, requestId) as IdempotencyRow | undefined;
}

export function insertIdempotency(sqlite: Sqlite, row: NewIdempotency): void {
  prepared(
    sqlite,
    `INSERT INTO idempotency_keys (merchant_id, scope, request_id, request_hash, resource_id, created_at)
     VALUES (@merchantId, @scope, @requestId, @requestHash, @resourceId, @now)`,
  ).run(row);
}

// ---- The charge lease of an ACCEPTED transaction (see services/transactions/create.ts).

/**
 * While a transaction is ACCEPTED with no channel result yet, `updated_at` is the start of the
 * charge under way. A repeat of the request may take the charge over (re-driving it through the
 * channel's idempotency) only once that charge is older than the lease, or was released because
 * the channel threw. Conditional, so exactly one caller takes it.
 */
export function claimCharge(sqlite: Sqlite, id: string, now: number, leaseMs: number): boolean {
  return (
    prepared(
      sqlite,
      'UPDATE transactions SET updated_at = @now WHERE id = @id AND status = 100000 AND channel_ref IS NULL AND updated_at <= @stale',
    ).run({ id, now, stale: now - leaseMs }).changes === 1
  );
}

/** The channel threw: let the next repeat of the request re-drive the charge at once. */
export function releaseCharge(sqlite: Sqlite, id: string, now: number, leaseMs: number): void {
  prepared(
    sqlite,
    'UPDATE transactions SET updated_at = @stale WHERE id = @id AND status = 100000 AND channel_ref IS NULL',
  ).run({
    id,
    stale: now - leaseMs,
  });
}

/**
 * A page whose card or 3DS answer is being sent to the channel: push its expiry to at least
 * `until`, while it is still open and unexpired, so the expiry sweep cannot close it under a
 * charge in flight. False when it is no longer open (expired, finished, or another submit won).
 */
export function holdPage(sqlite: Sqlite, id: string, openStatus: number, now: number, until: number): boolean {
  return (
    prepared(
      sqlite,
      `UPDATE transactions SET page_expires_at = max(page_expires_at, @until)
       WHERE id = @id AND status = @openStatus AND page_expires_at > @now`,
    ).run({ id, openStatus, now, until }).changes === 1
  );
}

/** A cancelled subscription's open first charge ends (its page stops working); false when it was not open. */
export function closeOpenCharge(sqlite: Sqlite, id: string, status: number, now: number): boolean {
  return (
    prepared(
      sqlite,
      `UPDATE transactions SET status = ?, page_token = NULL, page_expires_at = NULL, txn_time = ?, updated_at = ?
       WHERE id = ? AND status IN (100000, 100040, 100050)`,
    ).run(status, now, now, id).changes === 1
  );
}

/**
 * A PAY or a SUBSCRIPTION's first charge the channel refused to run (revoked key): the row and its
 * requestId go, as if the request had never come — for a SUBSCRIPTION also the INCOMPLETE
 * subscription it made, its INITIAL record, its card row and its place on the plan — so the same
 * request can be sent again once the merchant's key is fixed.
 */
export function discardUncharged(sqlite: Sqlite, id: string): boolean {
  const row = prepared(
    sqlite,
    "SELECT payment_type AS paymentType, subscription_id AS subscriptionId FROM transactions WHERE id = ? AND status = 100000 AND channel_ref IS NULL AND payment_type IN ('PAY', 'SUBSCRIPTION')",
  ).get(id) as { paymentType: string; subscriptionId: string | null } | undefined;
  if (!row) return false;
  let sub: { planId: string; cardId: string | null } | undefined;
  if (row.paymentType === 'SUBSCRIPTION') {
    // Only the subscription this request made and nothing else touched (still INCOMPLETE).
    sub = prepared(
      sqlite,
      "SELECT plan_id AS planId, card_id AS cardId FROM subscriptions WHERE id = ? AND status = 'INCOMPLETE' AND initial_transaction_id = ?",
    ).get(row.subscriptionId, id) as { planId: string; cardId: string | null } | undefined;
    if (!sub) return false;
  }
  prepared(sqlite, 'DELETE FROM transactions WHERE id = ?').run(id);
  prepared(sqlite, "DELETE FROM idempotency_keys WHERE scope = 'transaction' AND resource_id = ?").run(id);
  if (sub && row.subscriptionId) {
    prepared(sqlite, 'DELETE FROM billing_records WHERE subscription_id = ?').run(row.subscriptionId);
    prepared(sqlite, 'DELETE FROM subscriptions WHERE id = ?').run(row.subscriptionId);
    if (sub.cardId) prepared(sqlite, 'DELETE FROM cards WHERE id = ?').run(sub.cardId);
    prepared(sqlite, 'UPDATE plans SET current_subscriptions = max(current_subscriptions - 1, 0) WHERE id = ?').run(
      sub.planId,
    );
  }
  return true;
}

/** Reads only the partial index transactions_in_flight. */
export function inFlightChargeIds(sqlite: Sqlite, before: number, limit: number): string[] {
  return prepared(
    sqlite,
    "SELECT id FROM transactions WHERE status = 100000 AND channel_ref IS NOT NULL AND updated_at <= ? AND payment_type <> 'RENEWAL' ORDER BY updated_at LIMIT ?",
  )
    .pluck()
    .all(before, limit) as string[];
}

export function getByChannelRef(sqlite: Sqlite, merchantId: string, channelRef: string): TransactionRow | undefined {
  return prepared(sqlite, `${SELECT} WHERE merchant_id = ? AND channel_ref = ? LIMIT 1`).get(merchantId, channelRef) as
    | TransactionRow
    | undefined;
}
