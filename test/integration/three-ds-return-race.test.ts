import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { requireMerchant, updateMerchant } from '../../src/services/merchants.js';
import { returnFromThreeDs } from '../../src/services/pages.js';
import { createPlan } from '../../src/services/plans.js';
import { receiveStripeWebhook } from '../../src/services/stripe-webhook.js';
import { createTransaction } from '../../src/services/transactions/index.js';
import { cardYear } from '../helpers/cards.js';
import { CLOSED_NOTIFY_URL, testApp, testMerchant, TEST_NOW, type TestApp } from '../helpers/ctx.js';
import { signatureHeader, startStripeStandin, type StripeStandin } from '../helpers/stripe-standin/index.js';

/**
 * The shopper back from Stripe's 3-D Secure while Stripe's webhook settles the same payment: the
 * return shows the payment's result whichever lands first (on either engine).
 */
let stripe: StripeStandin;
let app: TestApp;
const before = process.env.PAYGATE_STRIPE_API_URL;

beforeAll(async () => {
  stripe = await startStripeStandin();
  process.env.PAYGATE_STRIPE_API_URL = stripe.url;
});
afterEach(async () => {
  vi.restoreAllMocks();
  await app?.close();
});
afterAll(async () => {
  if (before === undefined) delete process.env.PAYGATE_STRIPE_API_URL;
  else process.env.PAYGATE_STRIPE_API_URL = before;
  await stripe.close();
});

const RETURN_URL = 'https://shop.example.test/thanks';
/** 4000 0025 0000 3155: Stripe asks for 3-D Secure on-session. */
const card = () =>
  JSON.stringify({ cardNumber: '4000002500003155', month: '12', year: cardYear(TEST_NOW), cvv: '123' });

async function stripeMerchant() {
  app = await testApp();
  const ctx = app.ctx;
  const acct = stripe.createAccount();
  const id = (await testMerchant(ctx, { notifyUrl: CLOSED_NOTIFY_URL })).merchantId;
  await updateMerchant(ctx, id, {
    channel: 'stripe',
    stripeSecretKey: acct.secretKey,
    stripeWebhookSecret: acct.webhookSecret,
  });
  return { ctx, acct, id, merchant: () => requireMerchant(ctx, id) };
}

/** The shopper passes Stripe's challenge; Stripe's event for it, signed as Stripe sends it (not delivered). */
async function passChallenge(intentId: string, clientSecret: string, secret: string) {
  const done = await fetch(
    `${stripe.url}/3ds/${intentId}/complete?client_secret=${encodeURIComponent(clientSecret)}&outcome=pass`,
    { redirect: 'manual' },
  );
  expect(done.status).toBe(303);
  const event = stripe.events.filter((e) => (e.data as { object: { id: string } }).object.id === intentId).at(-1);
  const payload = JSON.stringify(event, null, 2);
  return { payload, signature: signatureHeader(payload, secret, Math.floor(TEST_NOW / 1000)) };
}

describe("the 3-D Secure return racing Stripe's webhook", () => {
  it.each([
    ['a PAY (PaymentIntent)', 'payment_intent.succeeded'],
    ["a trial subscription's card check (SetupIntent)", 'setup_intent.succeeded'],
  ])(
    '%s settled by %s between the return reading it and holding it: the return shows the result (returnUrl), not a 404',
    async (what) => {
      const { ctx, acct, id, merchant } = await stripeMerchant();
      const body: Record<string, unknown> = what.startsWith('a PAY')
        ? { requestId: 'p1', relationId: 'p1', paymentType: 'PAY', payAmount: '10.00', currency: 'USD' }
        : {
            requestId: 's1',
            relationId: 's1',
            paymentType: 'SUBSCRIPTION',
            userId: 'u1',
            planId: (
              await createPlan(ctx, id, {
                planName: 'Trial',
                price: '9.99',
                currency: 'USD',
                cycleType: 'MONTHLY',
                cycleLength: 1,
                trialDays: 14,
              })
            ).planId,
          };
      const t = (await createTransaction(ctx, await merchant(), {
        ...body,
        cardInfo: card(),
        returnUrl: RETURN_URL,
      })) as { transactionOrderId: string; status: string };
      expect(t.status).toBe('100040');
      const row = await ctx.store.getTransaction(t.transactionOrderId);
      const intent =
        acct.state.intents.get(row?.channelRef ?? '') ?? acct.state.setupIntents.get(row?.channelRef ?? '');
      if (!intent) throw new Error('no intent at Stripe');
      const hook = await passChallenge(intent.id, intent.clientSecret, acct.webhookSecret);

      // The webhook lands just after the return has read the transaction still waiting (100040),
      // before the return holds it for the channel call.
      const transaction = ctx.store.transaction.bind(ctx.store);
      vi.spyOn(ctx.store, 'transaction').mockImplementationOnce(async (fn) => {
        const answer = await receiveStripeWebhook(ctx, id, Buffer.from(hook.payload), hook.signature);
        expect(answer).toEqual({ status: 200, body: { status: 'ok' } });
        return transaction(fn);
      });
      const shown = await returnFromThreeDs(ctx, t.transactionOrderId);
      expect(shown).toMatchObject({ result: 'succeeded', redirectUrl: RETURN_URL });
      expect((await ctx.store.getTransaction(t.transactionOrderId))?.status).toBe(200000);
    },
  );
});
