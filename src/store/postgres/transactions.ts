import type { IdempotencyRow, IdempotencyScope, NewIdempotency, TransactionFilter, TransactionRow } from '../store.js';
import { transactions } from '../tables/index.js';
import { insertRow, patchKeys, selectFrom, selectList, setList } from '../tables/rows.js';
import { all, get, run, type Conn } from './query.js';

const SELECT = selectFrom(transactions, 't');

export async function insertTransaction(db: Conn, row: TransactionRow): Promise<void> {
  await run(db, insertRow(transactions), row);
}

export function getTransaction(db: Conn, id: string): Promise<TransactionRow | undefined> {
  return get(db, `${SELECT} WHERE t.id = @id`, { id });
}

/** The row locked until the unit of work ends: read-then-write decisions hold across instances. */
export function lockTransaction(db: Conn, id: string): Promise<TransactionRow | undefined> {
  return get(db, `${SELECT} WHERE t.id = @id FOR UPDATE`, { id });
}

export function getMerchantTransaction(db: Conn, merchantId: string, id: string): Promise<TransactionRow | undefined> {
  return get(db, `${SELECT} WHERE t.id = @id AND t.merchant_id = @merchantId`, { id, merchantId });
}

export function getByRelation(db: Conn, merchantId: string, relationId: string): Promise<TransactionRow | undefined> {
  return get(db, `${SELECT} WHERE t.merchant_id = @merchantId AND t.relation_id = @relationId`, {
    merchantId,
    relationId,
  });
}

export function getByPageToken(db: Conn, token: string): Promise<TransactionRow | undefined> {
  return get(db, `${SELECT} WHERE t.page_token = @token`, { token });
}

/**
 * Apply `patch` only while the transaction is still in `fromStatus`, in one statement: a
 * concurrent writer waits for the row lock and PostgreSQL re-checks the status against the
 * committed row, so every state change happens once.
 */
export async function updateTransactionIf(
  db: Conn,
  id: string,
  fromStatus: number,
  patch: Partial<Omit<TransactionRow, 'id'>>,
): Promise<{ updated: boolean; row?: TransactionRow }> {
  const keys = patchKeys(transactions, patch);
  if (keys.length === 0)
    return {
      updated:
        (await run(db, 'SELECT 1 FROM transactions WHERE id = @id AND status = @fromStatus', { id, fromStatus })) === 1,
    };
  // The row as changed comes back with the answer: the caller's next read of it needs no round trip.
  const sql = `UPDATE transactions t SET ${setList(keys)} WHERE t.id = @id AND t.status = @fromStatus
    RETURNING ${selectList(transactions, 't')}`;
  const row = await get<TransactionRow>(db, sql, { ...patch, id, fromStatus });
  return row ? { updated: true, row } : { updated: false };
}

export async function stalePageIds(db: Conn, now: number, limit: number): Promise<string[]> {
  const rows = await all<{ id: string }>(
    db,
    'SELECT id FROM transactions WHERE status IN (100040, 100050) AND page_expires_at <= @now ORDER BY page_expires_at LIMIT @limit',
    { now, limit },
  );
  return rows.map((r) => r.id);
}

export function listTransactionRows(db: Conn, f: TransactionFilter): Promise<TransactionRow[]> {
  const where: string[] = [];
  if (f.merchantId !== undefined) where.push('t.merchant_id = @merchantId');
  if (f.status !== undefined) where.push('t.status = @status');
  const sql = `${SELECT} ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY t.created_at DESC, t.id COLLATE "C" DESC LIMIT @limit`;
  const args: Record<string, unknown> = { limit: f.limit };
  if (f.merchantId !== undefined) args.merchantId = f.merchantId;
  if (f.status !== undefined) args.status = f.status;
  return all(db, sql, args);
}

export async function subscriptionCodeOf(db: Conn, subscriptionId: string): Promise<string | undefined> {
  return (
    await get<{ code: string }>(db, 'SELECT code FROM subscriptions WHERE id = @subscriptionId', { subscriptionId })
  )?.code;
}

/**
 * Inside a unit of work the read first takes a transaction-level advisory lock on the key: a
 * concurrent duplicate of the request (same merchant, scope and requestId, on any instance) waits
 * here until the first one commits, and then reads its row. Without it, under READ COMMITTED the
 * duplicate could miss the key and then see the first one's transaction by relationId (each
 * statement reads the latest commit), answering "relationId already used" instead of the result.
 */
export async function lockIdempotency(
  db: Conn,
  merchantId: string,
  scope: IdempotencyScope,
  requestId: string,
): Promise<IdempotencyRow | undefined> {
  // Two statements in one round trip (the connection is pipelined): the read is sent at once but
  // the server starts it, and takes its snapshot, only after the lock is granted.
  const [, row] = await Promise.all([
    get(db, 'SELECT pg_advisory_xact_lock(hashtextextended(@key, 0)) AS l', {
      key: `idem:${merchantId}:${scope}:${requestId}`,
    }),
    getIdempotency(db, merchantId, scope, requestId),
  ]);
  return row;
}

export function getIdempotency(
  db: Conn,
  merchantId: string,
  scope: IdempotencyScope,
  requestId: string,
): Promise<IdempotencyRow | undefined> {
  return get(
    db,
    `SELECT request_hash AS "requestHash", resource_id AS "resourceId" FROM idempotency_keys
     WHERE merchant_id = @merchantId AND scope = @scope AND request_id = @requestId`,
    { merchantId, scope, requestId },
  );
}

/**
 * A plain INSERT: a concurrent duplicate waits on the primary key, then fails with a unique
 * violation, and `Store.transaction` runs its unit of work again, which then reads the winner's row.
 */
export async function insertIdempotency(db: Conn, row: NewIdempotency): Promise<void> {
  await run(
    db,
    `INSERT INTO idempotency_keys (merchant_id, scope, request_id, request_hash, resource_id, created_at)
     VALUES (@merchantId, @scope, @requestId, @requestHash, @resourceId, @now)`,
    { ...row },
  );
}

/** See the SQLite engine: `updated_at` of an ACCEPTED transaction with no channel result is its charge lease. */
export async function claimCharge(db: Conn, id: string, now: number, leaseMs: number): Promise<boolean> {
  return (
    (await run(
      db,
      'UPDATE transactions SET updated_at = @now WHERE id = @id AND status = 100000 AND channel_ref IS NULL AND updated_at <= @stale',
      { id, now, stale: now - leaseMs },
    )) === 1
  );
}

export async function releaseCharge(db: Conn, id: string, now: number, leaseMs: number): Promise<void> {
  await run(
    db,
    'UPDATE transactions SET updated_at = @stale WHERE id = @id AND status = 100000 AND channel_ref IS NULL',
    {
      id,
      stale: now - leaseMs,
    },
  );
}

export async function holdPage(db: Conn, id: string, openStatus: number, now: number, until: number): Promise<boolean> {
  return (
    (await run(
      db,
      `UPDATE transactions SET page_expires_at = greatest(page_expires_at, @until)
       WHERE id = @id AND status = @openStatus AND page_expires_at > @now`,
      { id, openStatus, now, until },
    )) === 1
  );
}

export async function closeOpenCharge(db: Conn, id: string, status: number, now: number): Promise<boolean> {
  return (
    (await run(
      db,
      `UPDATE transactions SET status = @status, page_token = NULL, page_expires_at = NULL, txn_time = @now, updated_at = @now
       WHERE id = @id AND status IN (100000, 100040, 100050)`,
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
export async function discardUncharged(db: Conn, id: string): Promise<boolean> {
  const row = await get<{ paymentType: string; subscriptionId: string | null }>(
    db,
    `SELECT payment_type AS "paymentType", subscription_id AS "subscriptionId" FROM transactions
     WHERE id = @id AND status = 100000 AND channel_ref IS NULL AND payment_type IN ('PAY', 'SUBSCRIPTION') FOR UPDATE`,
    { id },
  );
  if (!row) return false;
  let sub: { planId: string; cardId: string | null } | undefined;
  if (row.paymentType === 'SUBSCRIPTION') {
    sub = await get<{ planId: string; cardId: string | null }>(
      db,
      `SELECT plan_id AS "planId", card_id AS "cardId" FROM subscriptions WHERE id = @sid AND status = 'INCOMPLETE' AND initial_transaction_id = @id FOR UPDATE`,
      { sid: row.subscriptionId, id },
    );
    if (!sub) return false;
  }
  await run(db, 'DELETE FROM transactions WHERE id = @id', { id });
  await run(db, "DELETE FROM idempotency_keys WHERE scope = 'transaction' AND resource_id = @id", { id });
  if (sub && row.subscriptionId) {
    await run(db, 'DELETE FROM billing_records WHERE subscription_id = @sid', { sid: row.subscriptionId });
    await run(db, 'DELETE FROM subscriptions WHERE id = @sid', { sid: row.subscriptionId });
    if (sub.cardId) await run(db, 'DELETE FROM cards WHERE id = @cid', { cid: sub.cardId });
    await run(
      db,
      'UPDATE plans SET current_subscriptions = greatest(current_subscriptions - 1, 0) WHERE id = @planId',
      { planId: sub.planId },
    );
  }
  return true;
}

/** Reads only the partial index transactions_in_flight. */
export async function inFlightChargeIds(db: Conn, before: number, limit: number): Promise<string[]> {
  const rows = await all<{ id: string }>(
    db,
    "SELECT id FROM transactions WHERE status = 100000 AND channel_ref IS NOT NULL AND updated_at <= @before AND payment_type <> 'RENEWAL' ORDER BY updated_at LIMIT @limit",
    { before, limit },
  );
  return rows.map((r) => r.id);
}

export function getByChannelRef(db: Conn, merchantId: string, channelRef: string): Promise<TransactionRow | undefined> {
  return get(db, `${SELECT} WHERE t.merchant_id = @merchantId AND t.channel_ref = @channelRef LIMIT 1`, {
    merchantId,
    channelRef,
  });
}
