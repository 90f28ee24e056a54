/** The revenue report's figures: one row per calendar month in the database's zone. Money in minor units. */
export interface MonthFigures {
  /** `yyyy-MM` */
  month: string;
  newSubscriptions: number;
  /** Subscriptions that ended in the month: CANCELLED, FAILED or EXPIRED. */
  churned: number;
  /** Subscriptions ACTIVE at the end of the month. */
  active: number;
  /** Monthly recurring revenue at the end of the month (minor units). */
  mrr: number;
  /** Successful subscription charges in the month (minor units). */
  charged: number;
  /** Refunds of subscription charges settled in the month (minor units). */
  refunded: number;
  /** Renewal and retry attempts that failed in the month. */
  failedAttempts: number;
  /** Renewals paid by a retry in the month (a RETRY record that succeeded). */
  recovered: number;
}

/**
 * What charged and refunded count, said wherever they are shown. The report is about
 * subscriptions (MRR, churn) and is in USD, the plans' currency; one-off payments can be in any
 * currency, so adding them in would mix currencies. `paygate tx list` lists them.
 */
export const REPORT_SCOPE =
  'charged and refunded count subscription charges only (first charges, renewals, retries, plan changes); one-off payments (PAY, checkout) are not in this report.';

export interface RevenueReport {
  merchantId?: string;
  merchantName?: string;
  currency: string;
  zone: string;
  months: MonthFigures[];
  /** When the report was made, as a time string in the zone. */
  generatedAt: string;
}
