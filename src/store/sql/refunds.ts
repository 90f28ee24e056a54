import type { RefundOutcome, RefundRow } from '../store.js';
import { refunds } from '../tables/index.js';
import { insertRow, selectFrom } from '../tables/rows.js';
import type { Db } from './db.js';

const SELECT = selectFrom(refunds);

export async function insertRefund(db: Db, row: RefundRow): Promise<void> {
  await db.run(insertRow(refunds), row);
}

export function getRefund(db: Db, id: string): Promise<RefundRow | undefined> {
  return db.get(`${SELECT} WHERE id = @id`, { id });
}

/** PENDING → SUCCEEDED | FAILED, once. */
export async function settleRefund(db: Db, id: string, outcome: RefundOutcome): Promise<boolean> {
  return (
    (await db.run(
      `UPDATE refunds SET status = @status, channel_ref = @channelRef, fail_reason = @failReason, updated_at = @now
       WHERE id = @id AND status = 'PENDING'`,
      { id, ...outcome },
    )) === 1
  );
}

/**
 * Reserve `amount` of a transaction for a refund under way. The guard repeats the limit, so even a
 * caller that skipped the read cannot over-reserve; on PostgreSQL a concurrent caller waits for
 * the row lock and the WHERE is evaluated again against the committed row.
 */
export async function reserveRefund(db: Db, txnId: string, amount: number, now: number): Promise<boolean> {
  return (
    (await db.run(
      `UPDATE transactions SET refund_reserved = refund_reserved + CAST(@amount AS BIGINT), updated_at = @now
       WHERE id = @txnId AND status IN (200000, 400010) AND refunded_amount + refund_reserved + CAST(@amount AS BIGINT) <= amount`,
      { txnId, amount, now },
    )) === 1
  );
}

/** Move `amount` of a transaction's reservation: settle it into refunded_amount, or release it. */
export async function settleReservation(
  db: Db,
  txnId: string,
  amount: number,
  refunded: boolean,
  now: number,
): Promise<void> {
  await db.run(
    `UPDATE transactions SET refund_reserved = refund_reserved - CAST(@amount AS BIGINT),
       refunded_amount = refunded_amount + (CASE WHEN @refunded = 1 THEN CAST(@amount AS BIGINT) ELSE 0 END),
       status = CASE WHEN @refunded <> 1 THEN status
                     WHEN refunded_amount + CAST(@amount AS BIGINT) >= amount THEN 400000 ELSE 400010 END,
       updated_at = @now
     WHERE id = @txnId`,
    { txnId, amount, refunded: refunded ? 1 : 0, now },
  );
}

/** Refunds still PENDING whose last change is before `before` (partial index refunds_pending). */
export async function stalePendingRefundIds(db: Db, before: number, limit: number): Promise<string[]> {
  const rows = await db.all<{ id: string }>(
    `SELECT id FROM refunds${db.dialect.indexedBy('refunds_pending')} WHERE status = 'PENDING' AND updated_at < @before
     ORDER BY updated_at LIMIT @limit`,
    { before, limit },
  );
  return rows.map((r) => r.id);
}

/** The channel's refund id of a refund still PENDING (it settles later); updated_at is left alone. */
export async function noteRefundRef(db: Db, id: string, channelRef: string): Promise<void> {
  await db.run("UPDATE refunds SET channel_ref = @channelRef WHERE id = @id AND status = 'PENDING'", {
    id,
    channelRef,
  });
}

/** A refund the channel refused to run (revoked key): the row and its requestId go. */
export async function discardRefusedRefund(db: Db, id: string): Promise<boolean> {
  const gone =
    (await db.run("DELETE FROM refunds WHERE id = @id AND status = 'PENDING' AND channel_ref IS NULL", { id })) === 1;
  if (gone)
    await db.run("DELETE FROM idempotency_keys WHERE scope IN ('refund', 'refund-signature') AND resource_id = @id", {
      id,
    });
  return gone;
}

export function getRefundByChannelRef(db: Db, merchantId: string, channelRef: string): Promise<RefundRow | undefined> {
  return db.get(`${SELECT} WHERE channel_ref = @channelRef AND merchant_id = @merchantId`, {
    merchantId,
    channelRef,
  });
}
