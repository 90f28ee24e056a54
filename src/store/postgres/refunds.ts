import type { RefundOutcome, RefundRow } from '../store.js';
import { refunds } from '../tables/index.js';
import { insertRow, selectFrom } from '../tables/rows.js';
import { all, get, run, type Conn } from './query.js';

export async function insertRefund(db: Conn, row: RefundRow): Promise<void> {
  await run(db, insertRow(refunds), row);
}

export function getRefund(db: Conn, id: string): Promise<RefundRow | undefined> {
  return get(db, `${selectFrom(refunds)} WHERE id = @id`, { id });
}

export async function settleRefund(db: Conn, id: string, outcome: RefundOutcome): Promise<boolean> {
  return (
    (await run(
      db,
      `UPDATE refunds SET status = @status, channel_ref = @channelRef, fail_reason = @failReason, updated_at = @now
       WHERE id = @id AND status = 'PENDING'`,
      { id, ...outcome },
    )) === 1
  );
}

/**
 * One conditional UPDATE: concurrent refunds from any instance queue on the transaction's row
 * lock and each re-checks the limit against the committed amounts, so they never exceed it.
 */
export async function reserveRefund(db: Conn, txnId: string, amount: number, now: number): Promise<boolean> {
  return (
    (await run(
      db,
      `UPDATE transactions SET refund_reserved = refund_reserved + @amount::bigint, updated_at = @now
       WHERE id = @txnId AND status IN (200000, 400010) AND refunded_amount + refund_reserved + @amount::bigint <= amount`,
      { txnId, amount, now },
    )) === 1
  );
}

export async function settleReservation(
  db: Conn,
  txnId: string,
  amount: number,
  refunded: boolean,
  now: number,
): Promise<void> {
  await run(
    db,
    `UPDATE transactions SET refund_reserved = refund_reserved - @amount::bigint,
       refunded_amount = refunded_amount + (CASE WHEN @refunded::boolean THEN @amount::bigint ELSE 0 END),
       status = CASE WHEN NOT @refunded::boolean THEN status
                     WHEN refunded_amount + @amount::bigint >= amount THEN 400000 ELSE 400010 END,
       updated_at = @now
     WHERE id = @txnId`,
    { txnId, amount, refunded, now },
  );
}

export async function stalePendingRefundIds(db: Conn, before: number, limit: number): Promise<string[]> {
  const rows = await all<{ id: string }>(
    db,
    "SELECT id FROM refunds WHERE status = 'PENDING' AND updated_at < @before ORDER BY updated_at LIMIT @limit",
    { before, limit },
  );
  return rows.map((r) => r.id);
}

/** The channel's refund id of a refund still PENDING (it settles later); updated_at is left alone. */
export async function noteRefundRef(db: Conn, id: string, channelRef: string): Promise<void> {
  await run(db, "UPDATE refunds SET channel_ref = @channelRef WHERE id = @id AND status = 'PENDING'", {
    id,
    channelRef,
  });
}

/** A refund the channel refused to run (revoked key): the row and its requestId go. */
export async function discardRefusedRefund(db: Conn, id: string): Promise<boolean> {
  const gone =
    (await run(db, "DELETE FROM refunds WHERE id = @id AND status = 'PENDING' AND channel_ref IS NULL", { id })) === 1;
  if (gone) await run(db, "DELETE FROM idempotency_keys WHERE scope = 'refund' AND resource_id = @id", { id });
  return gone;
}

export function getRefundByChannelRef(
  db: Conn,
  merchantId: string,
  channelRef: string,
): Promise<RefundRow | undefined> {
  return get(db, `${selectFrom(refunds)} WHERE merchant_id = @merchantId AND channel_ref = @channelRef LIMIT 1`, {
    merchantId,
    channelRef,
  });
}
