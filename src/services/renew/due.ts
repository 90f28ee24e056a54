import type { Ctx } from '../../app.js';
import { formatTime } from '../../domain/time.js';
import { amountNumber } from '../../domain/money.js';
import { prepared } from '../../store/prepared.js';
import { dueRecordIds, START_CURSOR } from '../../store/renewals.js';
import { getRecord, getSubscriptionById } from '../../store/subscriptions.js';

/** What `renew --dry-run` lists: a record that would be charged. */
export interface DueItem {
  recordId: string;
  subscriptionId: string;
  subscriptionCode: string;
  merchantId: string;
  billingType: string;
  amount: number;
  currency: string;
  scheduledTime: string;
  retryCount: number;
}

/** How many records are due and claimable now (partial index only; 0 costs one index probe). */
export function countDue(ctx: Ctx, now: number): number {
  const row = prepared(
    ctx.sqlite,
    `SELECT count(*) AS n FROM billing_records r INDEXED BY billing_records_due JOIN merchants m ON m.id = r.merchant_id
     WHERE r.status = 'PENDING' AND r.scheduled_time <= ? AND r.billing_type <> 'INITIAL'
       AND (r.lease_until IS NULL OR r.lease_until < ?) AND m.status = 'ACTIVE'`,
  ).get(now, now) as { n: number };
  return row.n;
}

/** The due records, oldest first, without claiming anything. */
export function dueItems(ctx: Ctx, now: number, limit: number): DueItem[] {
  const items: DueItem[] = [];
  let cursor = START_CURSOR;
  while (items.length < limit) {
    const page = dueRecordIds(ctx.sqlite, now, Math.min(500, limit - items.length), cursor);
    const last = page[page.length - 1];
    if (!last) break;
    cursor = { afterTime: last.scheduledTime, afterRowid: last.rowid };
    for (const { id } of page) {
      const r = getRecord(ctx.sqlite, id);
      const s = r ? getSubscriptionById(ctx.sqlite, r.subscriptionId) : undefined;
      if (!r || !s) continue;
      items.push({
        recordId: r.id,
        subscriptionId: s.id,
        subscriptionCode: s.code,
        merchantId: r.merchantId,
        billingType: r.billingType,
        amount: amountNumber(r.amount, r.currency),
        currency: r.currency,
        scheduledTime: formatTime(r.scheduledTime, ctx.zone),
        retryCount: r.retryCount,
      });
    }
  }
  return items;
}
