import type { Ctx } from '../../ctx.js';
import type { ClaimedRecord, Tx } from '../../store/store.js';
import type { ChargeOutcome } from './charge.js';
import { recordOutcome, type RecordedAs } from './record.js';

/** A charge the channel answered, waiting to be recorded. */
export interface Answered {
  rec: ClaimedRecord;
  outcome: Exclude<ChargeOutcome, { waiting: true }>;
}

/**
 * Record a batch's outcomes in ONE unit of work: one commit (one wait for the disk) and, on
 * PostgreSQL, every record's statements pipelined on one connection — a few round trips for the
 * batch instead of a few per record. The records are of different subscriptions, so recording
 * them side by side inside one unit of work is the same as one after another.
 *
 * All or nothing, so one record that cannot be recorded must not hold back the rest: then each
 * is recorded in its own unit of work, as if there had been no batch, and a failure stays that
 * record's own (its charge is kept by the channel under the record's key; the record stays
 * claimed and the run after its lease records it without charging again).
 */
export async function recordOutcomes(
  ctx: Ctx,
  answered: readonly Answered[],
): Promise<PromiseSettledResult<RecordedAs>[]> {
  if (answered.length === 0) return [];
  if (answered.length > 1) {
    const together = await ctx.store
      .transaction((tx) => recordAll(ctx, tx, answered, ctx.clock.now()))
      .catch(() => undefined);
    if (together) return together.map((value) => ({ status: 'fulfilled', value }));
  }
  return Promise.allSettled(
    answered.map(({ rec, outcome }) =>
      ctx.store.transaction((tx) => recordOutcome(ctx, tx, rec, outcome, ctx.clock.now())),
    ),
  );
}

/**
 * Every record recorded before the unit of work ends, even when one fails early: the others are
 * still using `tx`, which must not outlive the unit of work. The first failure then fails it.
 */
async function recordAll(ctx: Ctx, tx: Tx, answered: readonly Answered[], now: number): Promise<RecordedAs[]> {
  const settled = await Promise.allSettled(
    answered.map(({ rec, outcome }) => recordOutcome(ctx, tx, rec, outcome, now)),
  );
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed) throw failed.reason;
  return settled.map((s) => (s as PromiseFulfilledResult<RecordedAs>).value);
}
