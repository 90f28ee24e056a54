import type { Ctx } from '../../ctx.js';
import { deliverDue } from '../../notify/deliver.js';
import { warnExpiringCards } from '../card-expiring.js';
import { expireStalePages } from '../pages.js';
import { resumeStaleChanges } from '../plan-change/now.js';
import { resumeStaleRefunds } from '../refund.js';
import { settleInFlightCharges, settleUnrecordedCharges } from '../in-flight.js';

/** The payments side's page expiry (SPEC §7: a run expires abandoned 3DS/checkout sessions). */
export function expirePages(ctx: Ctx): Promise<number> {
  return expireStalePages(ctx);
}

/** Deliver pending callbacks after the run (SPEC §8), on the run's clock (`--at`). */
export async function deliverCallbacks(ctx: Ctx): Promise<number> {
  return (await deliverDue(ctx, { now: ctx.clock.now() })).delivered;
}

/** Customer emails (SPEC §17) after the run, on the run's clock (`--at`), as callbacks are. */
export async function deliverEmails(ctx: Ctx): Promise<number> {
  const { deliverCustomerEmails } = await import('../documents/email-delivery.js');
  return (await deliverCustomerEmails(ctx, { now: ctx.clock.now() })).sent;
}

/** Card-expiring notices for renewals within 7 days (SPEC §17), found by each run. */
export function warnCards(ctx: Ctx): Promise<number> {
  return warnExpiringCards(ctx, ctx.clock.now());
}

/** Refunds a thrown channel call left PENDING are driven again (docs/payments.md). */
export async function resumeRefunds(ctx: Ctx): Promise<void> {
  await resumeStaleRefunds(ctx);
  // Payments a processor left in flight (Stripe), settled from its own answer.
  await settleInFlightCharges(ctx);
  // Charges whose process died before recording them (any channel that finds charges by key).
  await settleUnrecordedCharges(ctx);
}

/** Plan changes whose request died between charge and record are finished (docs/renewals.md). */
export async function resumeChanges(ctx: Ctx): Promise<void> {
  await resumeStaleChanges(ctx);
}
