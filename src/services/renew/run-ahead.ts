import type { Ctx } from '../../ctx.js';
import { isTestModeKey } from '../../channel/stripe/key-shape.js';

/**
 * SPEC §7: a run on a test clock in the future charges early, so it may only touch money that
 * is not real. The ids of the merchants whose records due at `at` would be charged through
 * Stripe with a live-mode key; empty when running ahead to `at` moves no real money (sandbox
 * cards, test-mode keys, or nothing due). Decided by the key itself, never by where the Stripe
 * API is reached (a loopback egress proxy carries live traffic too). The key is opened only to
 * read its mode, and is neither returned nor logged.
 */
export async function liveMerchantsDueAt(ctx: Ctx, at: number): Promise<string[]> {
  const due = await ctx.store.dueStripeKeys(at);
  return due.filter((m) => !isTestModeKey(ctx.vault.decrypt(m.stripeSecretKeyEnc))).map((m) => m.merchantId);
}
