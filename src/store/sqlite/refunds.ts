import type { RefundOutcome, RefundRow } from '../store.js';
import type { Sqlite } from './client.js';
import { prepared } from './prepared.js';
import { refunds } from '../tables/index.js';
import { insertRow, selectFrom } from '../tables/rows.js';

export function insertRefund(sqlite: Sqlite, row: RefundRow): void {
  prepared(sqlite, insertRow(refunds)).run(row);
}

export function getRefund(sqlite: Sqlite, id: string): RefundRow | undefined {
  return prepared(sqlite, `${selectFrom(refunds)} WHERE id = ?`).get(id) as RefundRow | undefined;
}

/** PENDING → SUCCEEDED | FAILED, once. */
export function settleRefund(sqlite: Sqlite, id: string, outcome: RefundOutcome): boolean {
  return (
    prepared(
      sqlite,
      `UPDATE refunds SET status = @status, channel_ref = @channelRef, fail_reason = @failReason, updated_at = @now
       WHERE id = @id AND status = 'PENDING'`,
    ).run({ id, ...outcome }).changes === 1
  );
}

/** Move `amount` of a transaction's reservation: settle it into refunded_amount, or release it. */
export function reserveRefund(sqlite: Sqlite, txnId: string, amount: number, now: number): boolean {
  // The guard repeats the limit so even a caller that skipped the read cannot over-reserve.
  return (
    prepared(
      sqlite,
      `UPDATE transactions SET refund_reserved = refund_reserved + @amount, updated_at = @now
       WHERE id = @txnId AND status IN (200000, 400010) AND refunded_amount + refund_reserved + @amount <= amount`,
    ).run({ txnId, amount, now }).changes === 1
  );
}

export function settleReservation(sqlite: Sqlite, txnId: string, amount: number, refunded: boolean, now: number): void {
  prepared(
    sqlite,
    `UPDATE transactions SET refund_reserved = refund_reserved - @amount,
       refunded_amount = refunded_amount + (CASE WHEN @refunded THEN @amount ELSE 0 END),
       status = CASE WHEN NOT @refunded THEN status
                     WHEN refunded_amount + @amount >= amount THEN 400000 ELSE 400010 END,
       updated_at = @now
     WHERE id = @txnId`,
  ).run({ txnId, amount, refunded: refunded ? 1 : 0, now });
}

/** Refunds still PENDING whose last change is before `before` (partial index refunds_pending). */
export function stalePendingRefundIds(sqlite: Sqlite, before: number, limit: number): string[] {
  return (
    prepared(
      sqlite,
      "SELECT id FROM refunds INDEXED BY refunds_pending WHERE status = 'PENDING' AND updated_at < ? ORDER BY updated_at LIMIT ?",
    ).all(before, limit) as { id: string }[]
  ).map((r) => r.id);
}

/** The channel's refund id of a refund still PENDING (it settles later); updated_at is left alone. */
export function noteRefundRef(sqlite: Sqlite, id: string, channelRef: string): void {
  prepared(sqlite, "UPDATE refunds SET channel_ref = ? WHERE id = ? AND status = 'PENDING'").run(channelRef, id);
}

/** A refund the channel refused to run (revoked key): the row and its requestId go. */
export function discardRefusedRefund(sqlite: Sqlite, id: string): boolean {
  const gone =
    prepared(sqlite, "DELETE FROM refunds WHERE id = ? AND status = 'PENDING' AND channel_ref IS NULL").run(id)
      .changes === 1;
  if (gone) prepared(sqlite, "DELETE FROM idempotency_keys WHERE scope = 'refund' AND resource_id = ?").run(id);
  return gone;
}

export function getRefundByChannelRef(sqlite: Sqlite, merchantId: string, channelRef: string): RefundRow | undefined {
  return prepared(sqlite, `${selectFrom(refunds)} WHERE merchant_id = ? AND channel_ref = ? LIMIT 1`).get(
    merchantId,
    channelRef,
  ) as RefundRow | undefined;
}
