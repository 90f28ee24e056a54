import type { ActiveCycleGroup, RevenueMonthFigures, RevenueQuery } from '../store.js';
import type { Sqlite } from './client.js';

/**
 * The revenue report in SQL (definitions in docs/renewals.md, "Revenue report"). Two statements,
 * each ONE pass over its table, whatever the number of months:
 *  - subscriptions are grouped by the month they started and the month they stopped counting
 *    (and cycle, price and kind): a few hundred groups at most, from which new, churned, active
 *    and the MRR's price sums per month follow without touching a subscription again;
 *  - billing records (and refunds) of the range are grouped by month.
 * A month is found by a balanced tree of comparisons against the month ends (five for two years),
 * not a list of 24: on a million records that is the difference between about 0.9 s and 1.4 s.
 *
 * When a subscription stopped counting: the cancellation for CANCELLED, the end for FAILED and
 * EXPIRED, and for a PAUSED one its last update (its pause: nothing else updates a paused
 * subscription). Pauses already resumed are not recorded, so they do not show.
 */

/** Month index of `col` (epoch ms): the first month whose end is after it; `ends.length` when none. */
function monthOf(col: string, ends: readonly number[], lo = 0, hi = ends.length): string {
  if (lo === hi) return String(lo);
  const mid = (lo + hi) >> 1;
  // Whole numbers we computed: safe to write into the statement (and cacheable per month range).
  return `CASE WHEN ${col} < ${Math.trunc(ends[mid] ?? 0)} THEN ${monthOf(col, ends, lo, mid)} ELSE ${monthOf(col, ends, mid + 1, hi)} END`;
}

const STOP_AT = `CASE WHEN s.status = 'CANCELLED' THEN coalesce(s.cancel_time, s.end_time)
  WHEN s.status IN ('FAILED', 'EXPIRED') THEN s.end_time
  WHEN s.status = 'PAUSED' THEN s.updated_at END`;

interface SubscriptionGroup {
  sb: number;
  eb: number;
  startedIn: number;
  stoppedIn: number;
  churn: number;
  counts: number;
  cycleType: ActiveCycleGroup['cycleType'];
  cycleLength: number;
  n: number;
  priceSum: number;
}

export function revenueFigures(sqlite: Sqlite, q: RevenueQuery): RevenueMonthFigures[] {
  const out: RevenueMonthFigures[] = q.months.map(() => ({
    newSubscriptions: 0, churned: 0, active: [], charged: 0, refunded: 0, failedAttempts: 0, recovered: 0,
  }));
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
  const active = q.months.map(() => new Map<string, ActiveCycleGroup>());
  for (const g of groups) {
    if (g.startedIn && g.sb < months) (out[g.sb] as RevenueMonthFigures).newSubscriptions += g.n;
    if (g.churn && g.stoppedIn && g.eb < months) (out[g.eb] as RevenueMonthFigures).churned += g.n;
    if (!g.counts) continue;
    // Active at the end of every month from the one it started in to the one before it stopped.
    for (let i = g.sb; i < Math.min(g.eb, months); i++) {
      const key = `${g.cycleType}/${g.cycleLength}`;
      const bucket = active[i] as Map<string, ActiveCycleGroup>;
      const sum = bucket.get(key) ?? { cycleType: g.cycleType, cycleLength: g.cycleLength, count: 0, priceSum: 0 };
      sum.count += g.n;
      sum.priceSum += g.priceSum;
      bucket.set(key, sum);
    }
  }
  active.forEach((m, i) => ((out[i] as RevenueMonthFigures).active = [...m.values()]));

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
