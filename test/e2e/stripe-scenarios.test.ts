import { afterAll, beforeAll, describe, it } from 'vitest';
import { TEST_ENGINE } from '../helpers/env.js';
import { startStripeStandin, type StripeStandin } from '../helpers/stripe-standin/index.js';
import {
  declineScenario,
  payScenario,
  refundScenario,
  renewalScenario,
  startScenarioEnv,
  subscriptionScenario,
  type StripeScenarioEnv,
} from '../helpers/stripe-scenarios.js';

/**
 * The shared Stripe scenarios against the local stand-in: the very code the opt-in live test
 * (stripe-live.test.ts) runs against Stripe's test mode, proven here on every run, on both
 * engines (the database comes from shop-db.ts; the renewal is made due with `renew --at`).
 */
let stripe: StripeStandin;
let e: StripeScenarioEnv & { close: () => Promise<void> };

beforeAll(async () => {
  stripe = await startStripeStandin();
  e = await startScenarioEnv({ secretKey: stripe.account.secretKey, apiUrl: stripe.url });
});
afterAll(async () => {
  await e?.close();
  await stripe.close();
});

describe(`Stripe scenarios (local stand-in, ${TEST_ENGINE})`, () => {
  let paid: string;
  let subscriptionId: string;
  it('PAY 4242…: 200000, one succeeded intent', async () => {
    paid = (await payScenario(e)).txn;
  });
  it('PAY with a declined card: 300000 card_declined', async () => {
    await declineScenario(e);
  });
  it('SUBSCRIPTION: ACTIVE, card kept on a Customer, no number stored', async () => {
    subscriptionId = (await subscriptionScenario(e)).subscriptionId;
  });
  it('renewal made due, two runs at once: charged once off-session', async () => {
    await renewalScenario(e, subscriptionId);
  });
  it('refund in two parts: 400010 then 400000', async () => {
    await refundScenario(e, paid);
  });
});
