import type { Ctx } from '../ctx.js';
import type { UnrecordedCharge } from '../store/store.js';
import { channelOf } from './channel-of.js';
import { CHARGE_LEASE_MS } from './transactions/create.js';
import { applyChargeResult } from './transactions/outcome.js';
import { couponCoversFirstCharge, recordCoveredFirstCharge } from './transactions/zero-first-charge.js';
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

/** One pass's size; passes go on through the list, so one run settles a whole crash's worth. */
const UNRECORDED_PASS = 100;

/**
 * Customer-present charges whose process died between the channel call and recording its result
 * (SIGKILL mid-PAY): ACCEPTED with no channel result for longer than the charge lease. Each is
 * claimed as a repeat of its request would claim it, then settled from the channel's answer for
 * its idempotency key — the charge made (SUCCEEDED, FAILED, or waiting on 3DS) or, when none was
 * made, a closed key and FAILED (processing_error) — with its callback. Never a second charge: the
 * channel is only asked about the key, and a repeat of the request afterwards answers the result.
 */
export async function settleUnrecordedCharges(ctx: Ctx): Promise<InFlightSummary> {
  const summary: InFlightSummary = { settled: 0, stillInFlight: 0 };
  const before = ctx.clock.now() - CHARGE_LEASE_MS;
  let after: UnrecordedCharge = { updatedAt: -1, id: '' };
  for (;;) {
    const page = await ctx.store.unrecordedCharges(before, after, UNRECORDED_PASS);
    for (const { id } of page) {
      if (await settleUnrecorded(ctx, id)) summary.settled++;
      else summary.stillInFlight++;
    }
    const last = page.at(-1);
    if (page.length < UNRECORDED_PASS || last === undefined) return summary;
    after = last;
  }
}

async function settleUnrecorded(ctx: Ctx, id: string): Promise<boolean> {
  const row = await ctx.store.getTransaction(id);
  if (!row || row.status !== STATUS.ACCEPTED || row.channelRef !== null) return false;
  try {
    // No channel was to be called: record it as the request would have (its repeat may be doing so).
    if (await couponCoversFirstCharge(ctx.store, row)) {
      const claimed = await ctx.store.transaction((tx) => tx.claimCharge(row.id, ctx.clock.now(), CHARGE_LEASE_MS));
      return claimed && (await recordCoveredFirstCharge(ctx, row)).status === STATUS.SUCCEEDED;
    }
    const channel = await channelOf(ctx, row.merchantId, row.channel);
    if (!channel.chargeByKey) return false;
    // A repeat of the request (or another run) may be re-driving it now: exactly one of us owns it.
    const claimed = await ctx.store.transaction((tx) => tx.claimCharge(row.id, ctx.clock.now(), CHARGE_LEASE_MS));
    if (!claimed) return false;
    const result = await channel.chargeByKey({
      idempotencyKey: row.id,
      amount: row.amount,
      currency: row.currency,
      customerPresent: true,
    });
    return await ctx.store.transaction((tx) =>
      applyChargeResult(ctx, tx, row, STATUS.ACCEPTED, result, ctx.clock.now()),
    );
  } catch {
    // Asked again once the lease this claim took has passed.
    return false;
  }
}
