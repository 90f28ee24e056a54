import { newId } from '../../domain/ids.js';
import type { ClaimedRecord } from '../store.js';
import { CLAIMED_COLUMNS } from '../sql/records.js';
import { all, run, type Conn } from './query.js';

/**
 * The renewal run's claim protocol on PostgreSQL: inside the claim's unit of work the due list
 * (sql/records.ts) is read with FOR UPDATE SKIP LOCKED, then the batch is claimed in ONE
 * statement that locks the rows it can the same way and re-checks that each is still PENDING,
 * due and unleased. Concurrent runs on any host never wait
 * on each other's batches and never claim one record twice; a lease that ran out (a killed run)
 * makes the record claimable again, keeping the transaction written by the first claim.
 */

/**
 * The claim, and what the charge needs of each record it won (its subscription and card), in one
 * statement: the claimed rows as the UPDATE returns them, joined.
 */
const CLAIM_SQL = `WITH wanted AS (
    SELECT w.id, w.fresh FROM unnest(@ids::text[], @fresh::text[]) AS w(id, fresh)
  ), locked AS (
    SELECT r.id FROM billing_records r JOIN wanted w ON w.id = r.id
    WHERE r.status = 'PENDING' AND r.scheduled_time <= @now AND (r.lease_until IS NULL OR r.lease_until < @now)
    ORDER BY r.id
    FOR UPDATE OF r SKIP LOCKED
  ), won AS (
    UPDATE billing_records r SET lease_owner = @owner, lease_until = @leaseUntil, transaction_id = coalesce(r.transaction_id, w.fresh)
    FROM wanted w
    WHERE w.id = r.id AND r.id IN (SELECT id FROM locked)
    RETURNING r.*, r.transaction_id = w.fresh AS is_new
  )
  SELECT ${CLAIMED_COLUMNS}, r.is_new AS "isNew"
  FROM won r JOIN subscriptions s ON s.id = r.subscription_id LEFT JOIN cards c ON c.id = s.card_id`;

/**
 * The RENEWAL transactions of newly claimed records (the intent, ACCEPTED, before the channel is
 * called), one INSERT for the batch from the claimed records as read: arrays, no join, so no plan
 * can read the whole subscriptions table for a batch (a hash join did, 17–22 ms a batch at 20,000).
 */
const INSERT_RENEWALS_SQL = `INSERT INTO transactions (id, merchant_id, payment_type, status, amount, currency, subscription_id,
     billing_record_id, plan_id, user_id, card_bin, card_last4, card_brand, notify_url, channel, created_at, updated_at)
   SELECT w.id, w.merchant_id, 'RENEWAL', 100000, w.amount, w.currency, w.subscription_id, w.record_id, w.plan_id, w.user_id,
     w.bin, w.last4, w.brand, w.notify_url, w.channel, @now, @now
   FROM unnest(@id::text[], @merchantId::text[], @amount::bigint[], @currency::text[], @subscriptionId::text[],
     @recordId::text[], @planId::text[], @userId::text[], @bin::text[], @last4::text[], @brand::text[], @notifyUrl::text[],
     @channel::text[])
     AS w(id, merchant_id, amount, currency, subscription_id, record_id, plan_id, user_id, bin, last4, brand, notify_url, channel)`;

function insertRenewals(db: Conn, recs: readonly ClaimedRecord[], channel: string, now: number): Promise<number> {
  const col = <K extends keyof ClaimedRecord>(k: K) => recs.map((r) => r[k]);
  return run(db, INSERT_RENEWALS_SQL, {
    id: col('transactionId'),
    merchantId: col('merchantId'),
    amount: col('amount'),
    currency: col('currency'),
    subscriptionId: col('subscriptionId'),
    recordId: col('id'),
    planId: col('planId'),
    userId: col('userId'),
    bin: col('bin'),
    last4: col('last4'),
    brand: col('brand'),
    notifyUrl: col('notifyUrl'),
    channel: recs.map((r) => (r.cardChannel === 'stripe' ? 'stripe' : channel)),
    now,
  });
}

export async function claimDueRecords(
  db: Conn,
  ids: readonly string[],
  c: { owner: string; now: number; leaseUntil: number; channel: string },
): Promise<ClaimedRecord[]> {
  if (ids.length === 0) return [];
  const fresh = ids.map(() => newId('txn', c.now));
  const won = await all<ClaimedRecord & { isNew: boolean }>(db, CLAIM_SQL, {
    ids: [...ids],
    fresh,
    now: c.now,
    owner: c.owner,
    leaseUntil: c.leaseUntil,
  });
  if (won.length === 0) return [];
  const rows: ClaimedRecord[] = won.map(({ isNew: _, ...r }) => r);
  const newOnes = rows.filter((_, i) => won[i]?.isNew);
  if (newOnes.length > 0) await insertRenewals(db, newOnes, c.channel, c.now);
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}
