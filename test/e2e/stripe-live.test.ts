import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
 * Opt-in: the shared Stripe scenarios against Stripe's own TEST mode (api.stripe.com, no
 * PAYGATE_STRIPE_API_URL). Runs only with STRIPE_TEST_SECRET_KEY=sk_test_… set, never in CI;
 * a live key (sk_live_/rk_live_) is refused before anything is sent. The test account needs raw
 * card data APIs enabled (test mode: a switch in the dashboard), because paygate sends the card
 * number it was given to Stripe. See docs/stripe.md, "Testing against Stripe's test mode".
 */
const key = process.env.STRIPE_TEST_SECRET_KEY?.trim() ?? '';
const isTestKey = /^(sk|rk)_test_/.test(key);
const skipReason = process.env.CI
  ? 'never in CI'
  : key === ''
    ? 'STRIPE_TEST_SECRET_KEY is not set'
    : process.env.PAYGATE_STRIPE_API_URL
      ? 'PAYGATE_STRIPE_API_URL is set: the live test talks to api.stripe.com only'
      : null;

describe.skipIf(skipReason !== null || isTestKey)('Stripe test mode: key check', () => {
  it('refuses anything but a test key (sk_test_… or rk_test_…): nothing is sent to Stripe', () => {
    const what = /^(sk|rk)_live_/.test(key) ? 'a LIVE key' : 'not a Stripe test key';
    expect.fail(
      `STRIPE_TEST_SECRET_KEY is ${what}: the live test runs only in test mode (sk_test_…); nothing was sent`,
    );
  });
});

describe.skipIf(skipReason !== null || !isTestKey)(
  `Stripe test mode (live)${skipReason ? ` — skipped: ${skipReason}` : ''}`,
  () => {
    let e: StripeScenarioEnv & { close: () => Promise<void> };
    let paid: string;
    let subscriptionId: string;
    beforeAll(async () => {
      e = await startScenarioEnv({ secretKey: key, engine: 'sqlite' });
    }, 60_000);
    afterAll(async () => e?.close());

    it('PAY 4242…: 200000, one succeeded intent', async () => {
      paid = (await payScenario(e)).txn;
    }, 60_000);
    it('PAY with a declined card: 300000 card_declined', async () => {
      await declineScenario(e);
    }, 60_000);
    it('SUBSCRIPTION: ACTIVE, card kept on a Customer, no number stored', async () => {
      subscriptionId = (await subscriptionScenario(e)).subscriptionId;
    }, 60_000);
    it('renewal made due, two runs at once: charged once off-session', async () => {
      await renewalScenario(e, subscriptionId);
    }, 120_000);
    it('refund in two parts: 400010 then 400000', async () => {
      await refundScenario(e, paid);
    }, 60_000);
  },
);
