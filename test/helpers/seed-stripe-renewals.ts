import { openApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { TEST_VAULT_KEY } from './env.js';
import { rowsOf } from './rows.js';
import { seedDueSubscriptions } from './seed-renewals.js';
import { officialClient } from './stripe.js';
import type { StandinAccount, StripeStandin } from './stripe-standin/index.js';

/**
 * `count` due renewals of a merchant switched to Stripe, each subscription's card kept by the
 * stand-in's account (one Customer with one PaymentMethod set up for off-session charges, shared by
 * every card row: each renewal is still its own charge with its own key). The rows are those of
 * seedDueSubscriptions with the card moved to Stripe, as `subscription/create` would leave them.
 */
export async function seedStripeRenewals(
  dir: string,
  count: number,
  o: { db: string; startedAt: number; dueAt: number; stripe: StripeStandin; acct: StandinAccount },
): Promise<{ merchantId: string }> {
  await seedDueSubscriptions(dir, count, { db: o.db, startedAt: o.startedAt, dueAt: o.dueAt });
  const stripe = officialClient(o.stripe, { key: o.acct.secretKey });
  const pm = await stripe.paymentMethods.create({
    type: 'card',
    card: { number: '4242424242424242', exp_month: 12, exp_year: 2099, cvc: '123' },
  });
  const customer = await stripe.customers.create({ name: 'Seeded' });
  await stripe.paymentMethods.attach(pm.id, { customer: customer.id });
  const ctx = await openApp(loadConfig({ db: o.db, tz: 'UTC' }, { PAYGATE_VAULT_KEY: TEST_VAULT_KEY }));
  try {
    const rows = rowsOf(ctx);
    const { id } = await rows.get<{ id: string }>('SELECT id FROM merchants ORDER BY created_at LIMIT 1');
    await rows.run(
      "UPDATE merchants SET channel = 'stripe', stripe_secret_key_enc = ? WHERE id = ?",
      ctx.vault.encrypt(o.acct.secretKey),
      id,
    );
    await rows.run(
      "UPDATE cards SET channel = 'stripe', pan_enc = NULL, stripe_customer_id = ?, stripe_payment_method_id = ? WHERE merchant_id = ?",
      customer.id,
      pm.id,
      id,
    );
    return { merchantId: id };
  } finally {
    await ctx.close();
  }
}
