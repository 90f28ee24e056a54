import type { Ctx } from '../../ctx.js';
import { formatTime } from '../../domain/time.js';
import { amountNumber } from '../../domain/money.js';
import type { DueCursor } from '../../store/store.js';

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

/** How many records are due and claimable now (0 costs one index probe). */
export function countDue(ctx: Ctx, now: number): Promise<number> {
  return ctx.store.countDue(now);
}

/** The due records, oldest first, without claiming anything. */
export async function dueItems(ctx: Ctx, now: number, limit: number): Promise<DueItem[]> {
  const items: DueItem[] = [];
  let cursor: DueCursor = null;
  while (items.length < limit) {
    const page = await ctx.store.dueRecords(now, Math.min(500, limit - items.length), cursor);
    if (page.ids.length === 0) break;
    cursor = page.next;
    for (const id of page.ids) {
      const r = await ctx.store.getRecord(id);
      const s = r ? await ctx.store.getSubscriptionById(r.subscriptionId) : undefined;
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
