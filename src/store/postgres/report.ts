import type { RevenueMonthFigures, RevenueQuery } from '../store.js';
import { all, type Conn } from './query.js';
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
 * The revenue report on PostgreSQL: the SQLite engine's statements (see sqlite/report.ts for the
 * method), with PostgreSQL's types — comparisons are booleans here, so flags are CASE expressions,
 * and sums of bigint are numeric, so they are cast back to bigint (read as JS numbers).
 */
export async function revenueFigures(db: Conn, q: RevenueQuery): Promise<RevenueMonthFigures[]> {
  const out: RevenueMonthFigures[] = emptyFigures(q.months.length);
  const months = q.months.length;
  if (months === 0) return out;
  const ends = q.months.map((m) => m.end);
  const from = q.months[0]?.start ?? 0;
  const to = ends[months - 1] ?? 0;
  const args = { from, to, merchantId: q.merchantId ?? null };

  const groups = await all<SubscriptionGroup>(
    db,
    `SELECT ${monthOf('x.start_time', ends)} AS sb,
            CASE WHEN x.stop_at IS NULL THEN ${months} ELSE ${monthOf('x.stop_at', ends)} END AS eb,
            CASE WHEN x.start_time >= @from THEN 1 ELSE 0 END AS "startedIn",
            CASE WHEN x.stop_at >= @from THEN 1 ELSE 0 END AS "stoppedIn",
            x.churn AS churn, x.counts AS counts,
            x.cycle_type AS "cycleType", x.cycle_length AS "cycleLength", count(*) AS n, sum(x.amount)::bigint AS "priceSum"
     FROM (SELECT s.start_time, ${STOP_AT} AS stop_at, s.cycle_type, s.cycle_length, s.amount,
                  CASE WHEN s.status IN ('CANCELLED', 'FAILED', 'EXPIRED') THEN 1 ELSE 0 END AS churn,
                  CASE WHEN s.status IN ('INCOMPLETE', 'EXPIRED') THEN 0 ELSE 1 END AS counts
           FROM subscriptions s
           WHERE s.start_time < @to AND (@merchantId::text IS NULL OR s.merchant_id = @merchantId)) x
     GROUP BY 1, 2, 3, 4, 5, 6, 7, 8`,
    args,
  );
  foldSubscriptionGroups(out, groups);
  const couponCharges = await all<CouponChargeRow>(
    db,
    `SELECT s.id, s.start_time AS "startTime", ${STOP_AT} AS "stopAt",
            CASE WHEN s.status IN ('INCOMPLETE', 'EXPIRED') THEN 0 ELSE 1 END AS counts,
            s.cycle_type AS "cycleType", s.cycle_length AS "cycleLength", s.amount, b.actual_time AS at,
            b.discount_amount AS discount
     ${COUPON_CHARGES_FROM} AND s.start_time < @to AND b.actual_time < @to
       AND (@merchantId::text IS NULL OR s.merchant_id = @merchantId)
     ORDER BY s.id COLLATE "C", b.actual_time, b.id COLLATE "C"`,
    args,
  );
  subtractCouponDiscounts(out, ends, couponCharges);

  const attempts = await all<{ i: number; charged: number; failed: number; recovered: number }>(
    db,
    `SELECT ${monthOf('b.actual_time', ends)} AS i,
       coalesce(sum(CASE WHEN b.status = 'SUCCESS' THEN b.amount ELSE 0 END), 0)::bigint AS charged,
       count(*) FILTER (WHERE b.status = 'FAILED' AND b.billing_type IN ('RENEW', 'RETRY')) AS failed,
       count(*) FILTER (WHERE b.status = 'SUCCESS' AND b.billing_type = 'RETRY') AS recovered
     FROM billing_records b
     WHERE b.actual_time >= @from AND b.actual_time < @to AND b.status IN ('SUCCESS', 'FAILED')
       AND (@merchantId::text IS NULL OR b.merchant_id = @merchantId)
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

  const refunded = await all<{ i: number; amount: number }>(
    db,
    `SELECT ${monthOf('r.updated_at', ends)} AS i, coalesce(sum(r.amount), 0)::bigint AS amount
     FROM refunds r JOIN transactions t ON t.id = r.transaction_id
     WHERE r.status = 'SUCCEEDED' AND r.updated_at >= @from AND r.updated_at < @to
       AND t.payment_type IN ('SUBSCRIPTION', 'RENEWAL') AND (@merchantId::text IS NULL OR r.merchant_id = @merchantId)
     GROUP BY 1`,
    args,
  );
  for (const r of refunded) {
    const f = out[r.i];
    if (f) f.refunded = r.amount;
  }
  return out;
}
