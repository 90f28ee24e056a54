import type { Ctx } from '../../ctx.js';
import type { ClaimedRecord, DueCursor } from '../../store/store.js';

/** Maximum lease: SPEC §7 "a lease of at most 10 minutes on the run's clock". */
export const LEASE_MS = 10 * 60_000;

/**
 * List the next due records after `cursor` and claim them, in ONE unit of work: the listed
 * records are locked while they are claimed, so concurrent runs each take the next free records
 * (on PostgreSQL, records another run is claiming right now are passed over), each by its own
 * conditional write, so none takes a record another holds. The RENEWAL transaction row (the
 * intent, ACCEPTED) is written in the same unit of work, before any channel call; a record taken
 * over after a dead run's lease keeps its transaction. `listed` 0: nothing due is left after
 * `cursor` for this run.
 */
export async function claimNextBatch(
  ctx: Ctx,
  due: { cutoff: number; limit: number; cursor: DueCursor },
  owner: string,
  now: number,
): Promise<{ listed: number; next: DueCursor; claimed: ClaimedRecord[] }> {
  const claim = { owner, now, leaseUntil: now + LEASE_MS, channel: ctx.channel.name };
  return ctx.store.transaction(async (tx) => {
    const page = await tx.lockDueRecords(due.cutoff, due.limit, due.cursor);
    const claimed = page.ids.length > 0 ? await tx.claimDueRecords(page.ids, claim) : [];
    return { listed: page.ids.length, next: page.next, claimed };
  });
}
