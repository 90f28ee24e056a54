import type { RevenueMonthFigures, RevenueQuery } from '../store.js';
import type { Sqlite } from './client.js';
import {
  COUPON_CHARGES_FROM,
  type CouponChargeRow,
  emptyFigures,
  foldSubscriptionGroups,
  monthOf,
  STOP_AT,
  type SubscriptionGroup,
  subtractCouponDiscounts,
} from '../report-sql.js';

/**
 * The revenue report in SQL (definitions in docs/renewals.md, "Revenue report"): ONE pass over
 * each table, whatever the number of months — subscriptions grouped by the month they started and
 * the month they stopped counting (a few hundred groups, folded in report-sql.ts), billing
 * records and refunds of the range grouped by month.
 */

export function revenueFigures(sqlite: Sqlite, q: RevenueQuery): RevenueMonthFigures[] {
  const out: RevenueMonthFigures[] = emptyFigures(q.months.length);
  const months = q.months.length;
  if (months === 0) return out;
  const ends = q.months.map((m) => m.end);
  const from = q.months[0]?.start ?? 0;
  const to = ends[months - 1] ?? 0;
  const byMerchant = q.merchantId === undefined ? [] : [q.merchantId];

  const groups = sqlite
    .prepare(
      `SELECT ${monthOf('x.start_time', ends)} AS sb,
              CASE WHEN x.stop_at IS NULL THEN ${months} ELSE ${monthOf('x.stop_at', ends)} END AS eb,
              x.start_time >= ? AS startedIn, coalesce(x.stop_at >= ?, 0) AS stoppedIn, x.churn AS churn, x.counts AS counts,
              x.cycle_type AS cycleType, x.cycle_length AS cycleLength, count(*) AS n, sum(x.amount) AS priceSum
       FROM (SELECT s.start_time, ${STOP_AT} AS stop_at, s.cycle_type, s.cycle_length, s.amount,
                    CASE WHEN s.status IN ('CANCELLED', 'FAILED', 'EXPIRED') THEN 1 ELSE 0 END AS churn,
                    CASE WHEN s.status IN ('INCOMPLETE', 'EXPIRED') THEN 0 ELSE 1 END AS counts
             FROM subscriptions s
             WHERE s.start_time < ?${q.merchantId === undefined ? '' : ' AND s.merchant_id = ?'}) x
       GROUP BY 1, 2, 3, 4, 5, 6, 7, 8`,
    )
    .all(from, from, to, ...byMerchant) as SubscriptionGroup[];
  foldSubscriptionGroups(out, groups);
  const couponCharges = sqlite
    .prepare(
      `SELECT s.id, s.start_time AS startTime, ${STOP_AT} AS stopAt,
              CASE WHEN s.status IN ('INCOMPLETE', 'EXPIRED') THEN 0 ELSE 1 END AS counts,
              s.cycle_type AS cycleType, s.cycle_length AS cycleLength, s.amount, b.actual_time AS at, b.discount_amount AS discount
       ${COUPON_CHARGES_FROM} AND s.start_time < ? AND b.actual_time < ?${q.merchantId === undefined ? '' : ' AND s.merchant_id = ?'}
       ORDER BY s.id, b.actual_time, b.id`,
    )
    .all(to, to, ...byMerchant) as CouponChargeRow[];
  subtractCouponDiscounts(out, ends, couponCharges);

  const attempts = sqlite
    .prepare(
      `SELECT ${monthOf('b.actual_time', ends)} AS i,
         coalesce(sum(CASE WHEN b.status = 'SUCCESS' THEN b.amount ELSE 0 END), 0) AS charged,
         sum(CASE WHEN b.status = 'FAILED' AND b.billing_type IN ('RENEW', 'RETRY') THEN 1 ELSE 0 END) AS failed,
         sum(CASE WHEN b.status = 'SUCCESS' AND b.billing_type = 'RETRY' THEN 1 ELSE 0 END) AS recovered
       FROM billing_records b
       WHERE b.actual_time >= ? AND b.actual_time < ? AND b.status IN ('SUCCESS', 'FAILED')${q.merchantId === undefined ? '' : ' AND b.merchant_id = ?'}
       GROUP BY 1`,
    )
    .all(from, to, ...byMerchant) as Array<{ i: number; charged: number; failed: number; recovered: number }>;
  for (const r of attempts) {
    const f = out[r.i];
    if (!f) continue;
    f.charged = r.charged;
    f.failedAttempts = r.failed;
    f.recovered = r.recovered;
  }

  // Refunds of subscription charges (first charges and renewals), by the month they settled.
  const refunded = sqlite
    .prepare(
      `SELECT ${monthOf('r.updated_at', ends)} AS i, coalesce(sum(r.amount), 0) AS amount
       FROM refunds r JOIN transactions t ON t.id = r.transaction_id
       WHERE r.status = 'SUCCEEDED' AND r.updated_at >= ? AND r.updated_at < ?
         AND t.payment_type IN ('SUBSCRIPTION', 'RENEWAL')${q.merchantId === undefined ? '' : ' AND r.merchant_id = ?'}
       GROUP BY 1`,
    )
    .all(from, to, ...byMerchant) as Array<{ i: number; amount: number }>;
  for (const r of refunded) {
    const f = out[r.i];
    if (f) f.refunded = r.amount;
  }
  return out;
}
