import type { Ctx } from '../../ctx.js';
import type { ClaimedRecord } from '../../store/store.js';
import { writeTogether } from '../../store/store.js';
import type { ChargeOutcome } from './charge.js';
import { recordOutcome, type RecordedAs } from './record.js';

/** A charge the channel answered, waiting to be recorded. */
export interface Answered {
  rec: ClaimedRecord;
  outcome: Exclude<ChargeOutcome, { waiting: true }>;
}

/**
 * Record a batch's outcomes in ONE unit of work (writeTogether): a few round trips for the batch
 * instead of a few per record. The records are of different subscriptions, so recording them
 * side by side is the same as one after another.
 *
 * One record that cannot be recorded does not hold back the rest: it fails alone (its charge is
 * kept by the channel under the record's key; the record stays claimed and the run after its
 * lease records it without charging again).
 */
export async function recordOutcomes(
  ctx: Ctx,
  answered: readonly Answered[],
): Promise<PromiseSettledResult<RecordedAs>[]> {
  // Each success takes its merchant's invoice number, locking the merchant's row until COMMIT
  // (PostgreSQL): in merchant order, two runs' batches take those locks in the same order and
  // cannot deadlock each other.
  const order = answered
    .map((a, i) => ({ a, i }))
    .sort((x, y) => (x.a.rec.merchantId < y.a.rec.merchantId ? -1 : x.a.rec.merchantId > y.a.rec.merchantId ? 1 : 0));
  const results = await writeTogether(
    ctx.store,
    order.map((o) => o.a),
    (tx, { rec, outcome }) => recordOutcome(ctx, tx, rec, outcome, ctx.clock.now()),
  );
  const inOrder: PromiseSettledResult<RecordedAs>[] = [];
  order.forEach((o, k) => {
    const r = results[k];
    if (r) inOrder[o.i] = r;
  });
  return inOrder;
}
