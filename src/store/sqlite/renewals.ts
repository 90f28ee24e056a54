import { newId } from '../../domain/ids.js';
import type { ClaimedRecord } from '../store.js';
import { CLAIMED_COLUMNS } from '../sql/records.js';
import type { Sqlite } from './client.js';
import { statement } from './prepared.js';

/**
 * The renewal run's claim protocol (SPEC §7). Claims are conditional UPDATEs with a lease on the
 * run's clock, checked by their change count: no process-local lock, so the same protocol works
 * for any number of processes on this file and later on a server database.
 */

/** Claim a batch: each record by its own conditional UPDATE, its RENEWAL transaction written if new. */
export function claimDueRecords(
  sqlite: Sqlite,
  ids: readonly string[],
  c: { owner: string; now: number; leaseUntil: number; channel: string },
): ClaimedRecord[] {
  const claimed: ClaimedRecord[] = [];
  for (const id of ids) {
    const fresh = newId('txn', c.now);
    if (!claimRecord(sqlite, id, c.owner, c.now, c.leaseUntil, fresh)) continue;
    const rec = claimedRecord(sqlite, id);
    if (!rec) continue;
    // The record had no transaction before this claim: it is the one just given, to be written.
    if (rec.transactionId === fresh)
      insertRenewalTransaction(sqlite, fresh, rec, rec.cardChannel === 'stripe' ? 'stripe' : c.channel, c.now);
    claimed.push(rec);
  }
  return claimed;
}

/**
 * Claim one record for `owner` until `leaseUntil`, giving it `newTxnId` if it has no transaction
 * yet; false when another run holds it or it is no longer PENDING and due. The read of the
 * claimed record after it tells which transaction it has (the writer runs alone: nothing comes
 * between the two).
 */
function claimRecord(
  sqlite: Sqlite,
  id: string,
  owner: string,
  now: number,
  leaseUntil: number,
  newTxnId: string,
): boolean {
  // No RETURNING: SQLite stages its rows in a temporary table, dearer than the read by key after.
  return (
    statement(
      sqlite,
      `UPDATE billing_records SET lease_owner = @owner, lease_until = @leaseUntil, transaction_id = coalesce(transaction_id, @newTxnId)
     WHERE id = @id AND status = 'PENDING' AND scheduled_time <= @now AND (lease_until IS NULL OR lease_until < @now)`,
    ).run({ owner, leaseUntil, newTxnId, id, now }) === 1
  );
}

function claimedRecord(sqlite: Sqlite, id: string): ClaimedRecord | undefined {
  return statement(
    sqlite,
    `SELECT ${CLAIMED_COLUMNS}
     FROM billing_records r JOIN subscriptions s ON s.id = r.subscription_id LEFT JOIN cards c ON c.id = s.card_id
     WHERE r.id = @id`,
  ).get({ id }) as ClaimedRecord | undefined;
}

/**
 * The RENEWAL transaction of a claimed record, written in the claim transaction (the intent, in
 * ACCEPTED 100000) before the channel is called. A run that takes a record over reuses it.
 */
function insertRenewalTransaction(sqlite: Sqlite, id: string, rec: ClaimedRecord, channel: string, now: number): void {
  statement(
    sqlite,
    `INSERT INTO transactions (id, merchant_id, payment_type, status, amount, currency, subscription_id, billing_record_id,
       plan_id, user_id, card_bin, card_last4, card_brand, notify_url, channel, created_at, updated_at)
     VALUES (@id, @merchantId, 'RENEWAL', 100000, @amount, @currency, @subscriptionId, @recordId, @planId, @userId,
       @bin, @last4, @brand, @notifyUrl, @channel, @now, @now)`,
  ).run({
    id,
    merchantId: rec.merchantId,
    amount: rec.amount,
    currency: rec.currency,
    subscriptionId: rec.subscriptionId,
    recordId: rec.id,
    planId: rec.planId,
    userId: rec.userId,
    bin: rec.bin,
    last4: rec.last4,
    brand: rec.brand,
    notifyUrl: rec.notifyUrl,
    channel,
    now,
  });
}
