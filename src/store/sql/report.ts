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
import type { RevenueMonthFigures, RevenueQuery } from '../store.js';
import type { Db } from './db.js';

/**
 * The revenue report in SQL (definitions in docs/renewals.md, "Revenue report"): ONE pass over
 * each table, whatever the number of months — subscriptions grouped by the month they started and
 * the month they stopped counting (a few hundred groups, folded in report-sql.ts), billing
 * records and refunds of the range grouped by month. Portable SQL for both engines: flags are
 * CASE expressions (PostgreSQL's comparisons are booleans), sums are cast back to BIGINT
 * (PostgreSQL sums bigint as numeric). The month bounds are written into the text, so each
 * statement runs unprepared (`allOnce`).
 */
export async function revenueFigures(db: Db, q: RevenueQuery): Promise<RevenueMonthFigures[]> {
  const out: RevenueMonthFigures[] = emptyFigures(q.months.length);
  const months = q.months.length;
  if (months === 0) return out;
  const ends = q.months.map((m) => m.end);
  const args = { from: q.months[0]?.start ?? 0, to: ends[months - 1] ?? 0, merchantId: q.merchantId };
  // Written in only when asked, so the statement without it scans by time alone.
  const ofMerchant = (alias: string) => (q.merchantId === undefined ? '' : ` AND ${alias}.merchant_id = @merchantId`);

  const groups = await db.allOnce<SubscriptionGroup>(
    `SELECT ${monthOf('x.start_time', ends)} AS sb,
            CASE WHEN x.stop_at IS NULL THEN ${months} ELSE ${monthOf('x.stop_at', ends)} END AS eb,
            CASE WHEN x.start_time >= @from THEN 1 ELSE 0 END AS "startedIn",
            CASE WHEN x.stop_at >= @from THEN 1 ELSE 0 END AS "stoppedIn",
            x.churn AS churn, x.counts AS counts, x.cycle_type AS "cycleType", x.cycle_length AS "cycleLength",
            count(*) AS n, CAST(sum(x.amount) AS BIGINT) AS "priceSum"
     FROM (SELECT s.start_time, ${STOP_AT} AS stop_at, s.cycle_type, s.cycle_length, s.amount,
                  CASE WHEN s.status IN ('CANCELLED', 'FAILED', 'EXPIRED') THEN 1 ELSE 0 END AS churn,
                  CASE WHEN s.status IN ('INCOMPLETE', 'EXPIRED') THEN 0 ELSE 1 END AS counts
           FROM subscriptions s
           WHERE s.start_time < @to${ofMerchant('s')}) x
     GROUP BY 1, 2, 3, 4, 5, 6, 7, 8`,
    args,
  );
  foldSubscriptionGroups(out, groups);

  const { bytewise } = db.dialect;
  const couponCharges = await db.allOnce<CouponChargeRow>(
    `SELECT s.id, s.start_time AS "startTime", ${STOP_AT} AS "stopAt",
            CASE WHEN s.status IN ('INCOMPLETE', 'EXPIRED') THEN 0 ELSE 1 END AS counts,
            s.cycle_type AS "cycleType", s.cycle_length AS "cycleLength", s.amount, b.actual_time AS at,
            b.discount_amount AS discount
     ${COUPON_CHARGES_FROM} AND s.start_time < @to AND b.actual_time < @to${ofMerchant('s')}
     ORDER BY ${bytewise('s.id')}, b.actual_time, ${bytewise('b.id')}`,
    args,
  );
  subtractCouponDiscounts(out, ends, couponCharges);

  const attempts = await db.allOnce<{ i: number; charged: number; failed: number; recovered: number }>(
    `SELECT ${monthOf('b.actual_time', ends)} AS i,
       CAST(coalesce(sum(CASE WHEN b.status = 'SUCCESS' THEN b.amount ELSE 0 END), 0) AS BIGINT) AS charged,
       CAST(sum(CASE WHEN b.status = 'FAILED' AND b.billing_type IN ('RENEW', 'RETRY') THEN 1 ELSE 0 END) AS BIGINT) AS failed,
       CAST(sum(CASE WHEN b.status = 'SUCCESS' AND b.billing_type = 'RETRY' THEN 1 ELSE 0 END) AS BIGINT) AS recovered
     FROM billing_records b
     WHERE b.actual_time >= @from AND b.actual_time < @to AND b.status IN ('SUCCESS', 'FAILED')${ofMerchant('b')}
     GROUP BY 1`,
    args,
  );
  for (const r of attempts) {
    const f = out[r.i];
    if (!f) continue;
    f.charged = r.charged;
    f.failedAttempts = r.failed;
    f.recovered = r.recovered;
  }

  // Refunds of subscription charges (first charges and renewals), by the month they settled.
  const refunded = await db.allOnce<{ i: number; amount: number }>(
    `SELECT ${monthOf('r.updated_at', ends)} AS i, CAST(coalesce(sum(r.amount), 0) AS BIGINT) AS amount
     FROM refunds r JOIN transactions t ON t.id = r.transaction_id
     WHERE r.status = 'SUCCEEDED' AND r.updated_at >= @from AND r.updated_at < @to
       AND t.payment_type IN ('SUBSCRIPTION', 'RENEWAL')${ofMerchant('r')}
     GROUP BY 1`,
    args,
  );
  for (const r of refunded) {
    const f = out[r.i];
    if (f) f.refunded = r.amount;
  }
  return out;
}
