import type { Ctx } from '../../app.js';
import { newId } from '../../domain/ids.js';
import { claimRecord, claimedRecord, insertRenewalTransaction, LEASE_MS, type ClaimedRecord } from '../../store/renewals.js';

/**
 * Claim a batch of due records in ONE write transaction: each by its own conditional UPDATE
 * (checked by change count), so concurrent runs split the work and none takes a record another
 * holds. The RENEWAL transaction row (the intent, ACCEPTED) is written in the same transaction,
 * before any channel call; a record taken over after a dead run's lease keeps its transaction.
 */
export async function claimBatch(ctx: Ctx, ids: readonly string[], owner: string, now: number): Promise<ClaimedRecord[]> {
  const leaseUntil = now + LEASE_MS;
  return ctx.writer.transaction(() => {
    const claimed: ClaimedRecord[] = [];
    for (const id of ids) {
      const fresh = newId('txn', now);
      const txnId = claimRecord(ctx.sqlite, id, owner, now, leaseUntil, fresh);
      if (txnId === undefined) continue;
      const rec = claimedRecord(ctx.sqlite, id);
      if (!rec) continue;
      if (txnId === fresh) insertRenewalTransaction(ctx.sqlite, fresh, rec, ctx.channel.name, now);
      claimed.push(rec);
    }
    return claimed;
  });
}
