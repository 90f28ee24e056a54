import type { Ctx } from '../../ctx.js';
import type { ClaimedRecord } from '../../store/store.js';

/** Maximum lease: SPEC §7 "a lease of at most 10 minutes on the run's clock". */
export const LEASE_MS = 10 * 60_000;

/**
 * Claim a batch of due records in ONE unit of work: each by its own conditional write, so
 * concurrent runs split the work and none takes a record another holds. The RENEWAL transaction
 * row (the intent, ACCEPTED) is written in the same unit of work, before any channel call; a
 * record taken over after a dead run's lease keeps its transaction.
 */
export async function claimBatch(
  ctx: Ctx,
  ids: readonly string[],
  owner: string,
  now: number,
): Promise<ClaimedRecord[]> {
  const claim = { owner, now, leaseUntil: now + LEASE_MS, channel: ctx.channel.name };
  return ctx.store.transaction((tx) => tx.claimDueRecords(ids, claim));
}
