import { paygateAsync } from './cli-async.js';
import { createMerchant, type Served, startServe, type TestMerchant } from './serve.js';
import { type RowReader, shopDatabase } from './shop-db.js';
import { type StandinAccount, type StripeStandin, startStripeStandin } from './stripe-standin/index.js';

/**
 * The set-up the Stripe end-to-end suites share: a stand-in, one of its accounts, a shop on the
 * run's engine (a SQLite file, or a database of the PostgreSQL test cluster) whose merchant is
 * switched to Stripe through the real CLI, and `serve` on it pointed at the stand-in.
 */
export interface StripeShop {
  stripe: StripeStandin;
  acct: StandinAccount;
  /** What `--db` takes: the shop's SQLite file or its postgres:// URL. */
  db: string;
  /** The shop's rows, as another process sees them. */
  rows: RowReader;
  /** What every paygate process of the suite needs (PAYGATE_STRIPE_API_URL). */
  env: Record<string, string>;
  m: TestMerchant;
  srv: Served;
  stop(): Promise<void>;
}

export async function stripeShop(o: { prefix: string; name: string; webhookSecret?: boolean }): Promise<StripeShop> {
  const stripe = await startStripeStandin();
  const env = { PAYGATE_STRIPE_API_URL: stripe.url };
  const shop = await shopDatabase({ prefix: o.prefix });
  let srv: Served | undefined;
  const stop = async (): Promise<void> => {
    await srv?.stop();
    await stripe.close();
    await shop.drop();
  };
  try {
    const acct = stripe.createAccount();
    const m = createMerchant(shop.db, 2, o.name);
    const keys = ['--stripe-secret-key', acct.secretKey];
    if (o.webhookSecret) keys.push('--stripe-webhook-secret', acct.webhookSecret);
    const up = await paygateAsync(
      ['--db', shop.db, 'merchant', 'update', m.merchantId, '--channel', 'stripe', ...keys],
      env,
    );
    if (up.status !== 0) throw new Error(up.stderr);
    srv = await startServe({ dbPath: shop.db, env });
    return { stripe, acct, db: shop.db, rows: shop.rows, env, m, srv, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}
