import type { Ctx } from '../ctx.js';
import { channelOf } from './channel-of.js';
import { applyChargeResult } from './transactions/outcome.js';
import { STATUS } from './transactions/view.js';

export interface InFlightSummary {
  settled: number;
  stillInFlight: number;
}

/**
 * Customer-present charges a processor left in flight (a timeout, a 5xx, an intent still
 * processing; the transaction answered 100000) are settled from the processor's own answer:
 * read again, and confirmed with the original Idempotency-Key only if the confirmation never ran.
 * The webhook usually settles them first; this is the renewal run's safety net.
 */
export async function settleInFlightCharges(ctx: Ctx, opts: { limit?: number } = {}): Promise<InFlightSummary> {
  const summary: InFlightSummary = { settled: 0, stillInFlight: 0 };
  const ids = await ctx.store.inFlightChargeIds(ctx.clock.now(), opts.limit ?? 100);
  for (const id of ids) {
    const row = await ctx.store.getTransaction(id);
    if (!row || row.status !== STATUS.ACCEPTED || !row.channelRef) continue;
    try {
      const channel = await channelOf(ctx, row.merchantId, row.channel);
      if (!channel.resume) continue;
      const ref = row.channelRef;
      // A checkout's card attempts have their own keys; PAY and SUBSCRIPTION charge once, as attempt 0.
      const idempotencyKey = row.paymentType === 'CHECKOUT' ? `${row.id}:${row.checkoutDeclines + 1}` : row.id;
      const result = await channel.resume({ ref, idempotencyKey, transactionId: row.id });
      const moved = await ctx.store.transaction((tx) =>
        applyChargeResult(ctx, tx, row, STATUS.ACCEPTED, result, ctx.clock.now()),
      );
      if (moved && result.outcome !== 'in_flight' && result.outcome !== 'refused') summary.settled++;
      else summary.stillInFlight++;
    } catch {
      summary.stillInFlight++;
    }
  }
  return summary;
}
