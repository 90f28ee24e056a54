import type Stripe from 'stripe';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ChannelCard } from '../../src/channel/channel.js';
import { createStripeChannel } from '../../src/channel/stripe/channel.js';
import {
  chargeOffSession,
  createStripeClient,
  paymentKey,
  renewalKey,
  resumeSetup,
  retrieveSetup,
  setUpCard,
  verifyWebhook,
  type SetupInput,
} from '../../src/channel/stripe/index.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { answerChallenge, NEXT_YEAR, rejected, startReturnPage, type ReturnPage } from '../helpers/stripe.js';
import { startStripeStandin, type StripeStandin } from '../helpers/stripe-standin/index.js';

/** A card saved without a charge (trials, card updates): the adapter's SetupIntents against the stand-in. */
let s: StripeStandin;
let client: Stripe;
let back: ReturnPage;
let hook: Receiver;
beforeEach(async () => {
  s = await startStripeStandin();
  client = createStripeClient({ secretKey: s.account.secretKey, apiUrl: s.url });
  back = await startReturnPage();
  hook = await startReceiver();
  s.account.setWebhookUrl(hook.url('/channel/stripe/mer_1/webhook'));
});
afterEach(async () => {
  await s.close();
  await back.close();
  await hook.close();
});

const CONFIRM = /^\/v1\/setup_intents\/[^/]+\/confirm$/;
let seq = 0;
const card = (number: string): ChannelCard => ({
  number,
  expMonth: 11,
  expYear: NEXT_YEAR,
  cvv: '123',
  holderName: 'Ada Lovelace',
});
const setup = (number: string, over: Partial<SetupInput> = {}): SetupInput => ({
  idempotencyKey: paymentKey(`txn_${++seq}`, 0),
  card: card(number),
  customerId: null,
  returnUrl: back.url,
  ...over,
});
const setups = () => [...s.account.state.setupIntents.values()];

describe('adapter: a card saved with a SetupIntent (no charge)', () => {
  it('4242…: approved with the SetupIntent as ref; the PaymentMethod is attached to a new Customer for off-session use; nothing charged', async () => {
    const input = setup('4242424242424242');
    const r = await setUpCard(client, input);
    expect(r).toMatchObject({ outcome: 'approved', ref: expect.stringMatching(/^seti_/) });
    expect(r.card).toEqual({
      paymentMethodId: expect.stringMatching(/^pm_/),
      customerId: expect.stringMatching(/^cus_/),
      brand: 'visa',
      last4: '4242',
      expMonth: 11,
      expYear: NEXT_YEAR,
    });
    expect(setups()[0]).toMatchObject({
      status: 'succeeded',
      usage: 'off_session',
      customerId: r.card?.customerId,
      paymentMethodId: r.card?.paymentMethodId,
    });
    expect(s.account.state.paymentMethods.get(r.card?.paymentMethodId ?? '')).toMatchObject({
      customerId: r.card?.customerId,
      setUpOffSession: true,
    });
    expect(s.account.state.charges.size).toBe(0);
    expect(s.account.state.intents.size).toBe(0);
    const keys = s.requests.filter((q) => q.method === 'POST').map((q) => q.idempotencyKey);
    expect(keys).toEqual([
      `${input.idempotencyKey}:payment_method`,
      `${input.idempotencyKey}:customer`,
      `${input.idempotencyKey}:setup_intent`,
      `${input.idempotencyKey}:setup_confirm`,
    ]);
  });

  it('the saved card is then charged off-session through a PaymentIntent, even a card that asked for 3DS on-session once it is set up', async () => {
    const r = await setUpCard(client, setup('4000002500003155'));
    expect(r.outcome).toBe('requires_action');
    if (r.outcome !== 'requires_action' || !r.card?.customerId) throw new Error('expected a 3DS hand-over');
    await answerChallenge(r.redirectUrl, 'pass');
    expect(await retrieveSetup(client, r.ref)).toEqual({ outcome: 'approved', ref: r.ref });
    const renewal = await chargeOffSession(client, {
      idempotencyKey: renewalKey('rec_1', 0),
      amount: 999,
      currency: 'usd',
      customerId: r.card.customerId,
      paymentMethodId: r.card.paymentMethodId,
    });
    expect(renewal).toMatchObject({ outcome: 'approved', ref: expect.stringMatching(/^pi_/) });
  });

  it("a card update joins the subscription's existing Customer", async () => {
    const first = await setUpCard(client, setup('4242424242424242'));
    const customerId = first.card?.customerId ?? '';
    const second = await setUpCard(client, setup('5555555555554444', { customerId }));
    expect(second).toMatchObject({ outcome: 'approved' });
    expect(second.card).toMatchObject({ customerId, brand: 'mastercard', last4: '4444' });
    expect(s.account.state.customers.size).toBe(1);
    expect(
      s.requests.some(
        (q) => q.idempotencyKey?.endsWith(':customer') && q.idempotencyKey.startsWith(`paygate:txn_${seq}:`),
      ),
    ).toBe(false);
  });

  it.each([
    ['4000000000000002', 'card_declined'],
    ['4000000000009995', 'insufficient_funds'],
    ['4000000000000069', 'expired_card'],
  ])(
    '%s is declined with failReason %s; the SetupIntent keeps last_setup_error and the card is not attached',
    async (number, reason) => {
      const r = await setUpCard(client, setup(number));
      expect(r).toMatchObject({ outcome: 'declined', reason, ref: setups()[0]?.id });
      expect(setups()[0]).toMatchObject({ status: 'requires_payment_method', lastError: { type: 'card_error' } });
      expect(s.account.state.paymentMethods.get(setups()[0]?.paymentMethodId ?? '')?.customerId).toBeNull();
      expect(await retrieveSetup(client, setups()[0]?.id ?? '')).toMatchObject({ outcome: 'declined', reason });
    },
  );

  it("3DS: requires_action with Stripe's redirect URL; a failed challenge reads back as authentication_failed, with the return URL given setup_intent", async () => {
    const r = await setUpCard(client, setup('4000002760003184'));
    if (r.outcome !== 'requires_action') throw new Error(`expected requires_action, got ${r.outcome}`);
    expect(r.redirectUrl.startsWith(`${s.url}/3ds/${r.ref}`)).toBe(true);
    const landed = await answerChallenge(r.redirectUrl, 'fail');
    expect(landed.status).toBe(200);
    const hit = back.hits.at(-1);
    expect(hit?.searchParams.get('setup_intent')).toBe(r.ref);
    expect(hit?.searchParams.get('redirect_status')).toBe('failed');
    expect(await retrieveSetup(client, r.ref)).toMatchObject({ outcome: 'declined', reason: 'authentication_failed' });
  });

  it('a timeout after Stripe set the card up: in flight with the SetupIntent; resuming reads it — one SetupIntent, confirmed once', async () => {
    const slow = createStripeClient({ secretKey: s.account.secretKey, apiUrl: s.url, timeoutMs: 300 });
    const input = setup('4242424242424242');
    s.faults.inject({ kind: 'timeout' }, { match: { path: CONFIRM } });
    const first = await setUpCard(slow, input);
    expect(first).toMatchObject({ outcome: 'in_flight', cause: 'timeout', ref: setups()[0]?.id });
    expect(first.card?.customerId).toMatch(/^cus_/);
    expect(setups()[0]?.status).toBe('succeeded');
    expect(
      await resumeSetup(slow, {
        idempotencyKey: input.idempotencyKey,
        intentId: setups()[0]?.id ?? '',
        returnUrl: back.url,
      }),
    ).toMatchObject({ outcome: 'approved' });
    // Repeating the whole set-up with the same keys (within Stripe's 24 hours) finds the same objects.
    const again = await setUpCard(slow, input);
    expect(again).toMatchObject({ outcome: 'approved', ref: setups()[0]?.id });
    expect(setups()).toHaveLength(1);
    expect(s.requests.filter((q) => CONFIRM.test(q.path)).map((q) => q.replayed)).toEqual([false, true]);
  });

  it('a SetupIntent whose confirm never ran is confirmed by resumeSetup with its original key', async () => {
    const input = setup('4242424242424242');
    s.faults.inject({ kind: 'server_error' }, { match: { path: CONFIRM } });
    const first = await setUpCard(client, input);
    expect(first).toMatchObject({ outcome: 'in_flight', cause: 'server_error', ref: setups()[0]?.id });
    expect(setups()[0]?.status).toBe('requires_confirmation');
    expect(
      await resumeSetup(client, { idempotencyKey: input.idempotencyKey, intentId: setups()[0]?.id ?? '' }),
    ).toMatchObject({ outcome: 'approved' });
    expect(s.requests.filter((q) => CONFIRM.test(q.path)).map((q) => q.idempotencyKey)).toEqual([
      `${input.idempotencyKey}:setup_confirm`,
      `${input.idempotencyKey}:setup_confirm`,
    ]);
  });

  it("the channel routes a zero-amount customer-present charge to a SetupIntent, and retrieve/resume by the ref's kind", async () => {
    const channel = createStripeChannel({
      secretKey: s.account.secretKey,
      apiUrl: s.url,
      publicUrl: 'http://paygate.test',
    });
    const r = await channel.charge({
      idempotencyKey: 'txn_zero',
      amount: 0,
      currency: 'USD',
      card: card('4000002500003155'),
      customerPresent: true,
      transactionId: 'txn_zero',
      keepCard: true,
    });
    expect(r).toMatchObject({
      outcome: 'requires_action',
      ref: expect.stringMatching(/^seti_/),
      kept: { customerId: expect.stringMatching(/^cus_/), last4: '3155' },
    });
    expect(setups()[0]?.returnUrl).toBe('http://paygate.test/3ds/return/txn_zero');
    expect(await channel.retrieve?.(setups()[0]?.id ?? '')).toMatchObject({ outcome: 'requires_action' });
    expect(s.account.state.intents.size).toBe(0);
  });
});

describe('stand-in: SetupIntents as Stripe answers them', () => {
  it('create, retrieve, confirm, cancel; a canceled one cannot be confirmed (setup_intent_unexpected_state)', async () => {
    const pm = await client.paymentMethods.create({
      type: 'card',
      card: { number: '4242424242424242', exp_month: 12, exp_year: NEXT_YEAR, cvc: '123' },
    });
    const cus = await client.customers.create({});
    const si = await client.setupIntents.create({ customer: cus.id, payment_method: pm.id, usage: 'off_session' });
    expect(si).toMatchObject({
      object: 'setup_intent',
      status: 'requires_confirmation',
      usage: 'off_session',
      customer: cus.id,
      payment_method: pm.id,
      next_action: null,
      last_setup_error: null,
    });
    expect((await client.setupIntents.retrieve(si.id)).id).toBe(si.id);
    const gone = await client.setupIntents.cancel(si.id, { cancellation_reason: 'abandoned' });
    expect(gone).toMatchObject({ status: 'canceled', cancellation_reason: 'abandoned' });
    const err = await rejected(client.setupIntents.confirm(si.id, {}));
    expect(err).toMatchObject({ statusCode: 400, code: 'setup_intent_unexpected_state' });
  });

  it('the same Idempotency-Key replays the first answer; other parameters with it are refused', async () => {
    const cus = await client.customers.create({});
    const a = await client.setupIntents.create({ customer: cus.id }, { idempotencyKey: 'k-1' });
    const b = await client.setupIntents.create({ customer: cus.id }, { idempotencyKey: 'k-1' });
    expect(b.id).toBe(a.id);
    expect(s.requests.at(-1)?.replayed).toBe(true);
    const err = await rejected(
      client.setupIntents.create({ customer: cus.id, usage: 'on_session' }, { idempotencyKey: 'k-1' }),
    );
    expect(err).toMatchObject({ statusCode: 400, type: 'StripeIdempotencyError' });
  });

  it("signed webhooks setup_intent.succeeded and setup_intent.setup_failed, verified by the adapter's verifier", async () => {
    await setUpCard(client, setup('4242424242424242'));
    await setUpCard(client, setup('4000000000000002'));
    await s.webhooksIdle();
    const got = hook.received.map((r) =>
      verifyWebhook({
        payload: r.rawBody,
        signatureHeader: r.headers['stripe-signature'] as string | undefined,
        secret: s.account.webhookSecret,
        now: s.now(),
      }),
    );
    const settled = got.map((v) =>
      v.ok ? [v.type, v.settlement.kind === 'payment' ? v.settlement.result.outcome : v.settlement.kind] : ['bad'],
    );
    expect(settled).toEqual(
      expect.arrayContaining([
        ['setup_intent.succeeded', 'approved'],
        ['setup_intent.setup_failed', 'declined'],
      ]),
    );
  });
});
