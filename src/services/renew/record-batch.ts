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
export function recordOutcomes(ctx: Ctx, answered: readonly Answered[]): Promise<PromiseSettledResult<RecordedAs>[]> {
  return writeTogether(ctx.store, answered, (tx, { rec, outcome }) =>
    recordOutcome(ctx, tx, rec, outcome, ctx.clock.now()),
  );
}
