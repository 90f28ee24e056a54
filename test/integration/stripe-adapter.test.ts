import type Stripe from 'stripe';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ChannelCard } from '../../src/channel/channel.js';
import { withCallScope } from '../../src/channel/call-scope.js';
import {
  chargeOffSession,
  checkKey,
  createAndConfirmPayment,
  createStripeClient,
  paymentKey,
  refundKey,
  refundPayment,
  renewalKey,
  resumePayment,
  retrieveIntent,
  retrieveRefund,
  verifyWebhook,
  type PaymentInput,
} from '../../src/channel/stripe/index.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { answerChallenge, NEXT_YEAR, startReturnPage, type ReturnPage } from '../helpers/stripe.js';
import { startStripeStandin, type StripeStandin } from '../helpers/stripe-standin/index.js';

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

const CONFIRM = /^\/v1\/payment_intents\/[^/]+\/confirm$/;

/** A caller that will not wait out a 429 (its patience already ended): the 429 is its answer. */
const impatient = <T>(fn: () => Promise<T>): Promise<T> =>
  withCallScope({ background: false, retryUntil: Date.now() }, fn);
let seq = 0;
const card = (number: string): ChannelCard => ({
  number,
  expMonth: 11,
  expYear: NEXT_YEAR,
  cvv: '123',
  holderName: 'Ada Lovelace',
});
const payment = (number: string, over: Partial<PaymentInput> = {}): PaymentInput => ({
  idempotencyKey: paymentKey(`txn_${++seq}`, 1),
  amount: 4200,
  currency: 'EUR',
  source: { card: card(number) },
  returnUrl: back.url,
  saveForOffSession: false,
  ...over,
});
const intents = () => [...s.account.state.intents.values()];
const charges = () => [...s.account.state.charges.values()];

describe('adapter: customer-present payments', () => {
  it('an approved card maps to approved with the intent as ref and the card on file (no number)', async () => {
    const r = await createAndConfirmPayment(client, payment('4242424242424242'));
    expect(r).toMatchObject({ outcome: 'approved', ref: expect.stringMatching(/^pi_/) });
    expect(r.card).toEqual({
      paymentMethodId: expect.stringMatching(/^pm_/),
      customerId: null,
      brand: 'visa',
      last4: '4242',
      expMonth: 11,
      expYear: NEXT_YEAR,
    });
    expect(intents()[0]).toMatchObject({ amount: 4200, currency: 'eur', status: 'succeeded' });
  });

  it('each call carries a key derived from the transaction and attempt', async () => {
    const input = payment('4242424242424242', { saveForOffSession: true });
    await createAndConfirmPayment(client, input);
    expect(s.requests.map((r) => [r.path, r.idempotencyKey])).toEqual([
      ['/v1/payment_methods', `${input.idempotencyKey}:payment_method`],
      ['/v1/customers', `${input.idempotencyKey}:customer`],
      ['/v1/payment_intents', `${input.idempotencyKey}:payment_intent`],
      [`/v1/payment_intents/${intents()[0]?.id}/confirm`, `${input.idempotencyKey}:confirm`],
    ]);
  });

  it.each([
    ['4000000000000002', 'card_declined', 'generic_decline'],
    ['4000000000009995', 'insufficient_funds', 'insufficient_funds'],
    ['4000000000000069', 'expired_card', 'expired_card'],
    ['4000000000000127', 'incorrect_cvc', 'incorrect_cvc'],
    ['4000000000000119', 'processing_error', 'processing_error'],
    ['4000000000009987', 'card_declined', 'lost_card'],
  ])('%s → declined with failReason %s', async (number, reason, stripeCode) => {
    const r = await createAndConfirmPayment(client, payment(number));
    expect(r).toMatchObject({ outcome: 'declined', reason, stripeCode, ref: expect.stringMatching(/^pi_/) });
  });

  it('a number Stripe rejects before any intent → declined with no ref', async () => {
    const r = await createAndConfirmPayment(client, payment('4242424242424241'));
    expect(r).toMatchObject({
      outcome: 'declined',
      ref: null,
      reason: 'card_declined',
      stripeCode: 'incorrect_number',
      card: null,
    });
    expect(intents()).toHaveLength(0);
  });

  it('a card asking for 3DS → requires_action with Stripe’s URL; passing it, the intent reads approved', async () => {
    const r = await createAndConfirmPayment(client, payment('4000002500003155'));
    if (r.outcome !== 'requires_action') throw new Error(`expected requires_action, got ${r.outcome}`);
    expect(r.redirectUrl.startsWith(`${s.url}/3ds/${r.ref}`)).toBe(true);
    expect(await retrieveIntent(client, r.ref)).toMatchObject({ outcome: 'requires_action' });
    await answerChallenge(r.redirectUrl, 'pass');
    expect(back.hits[0]?.searchParams.get('payment_intent')).toBe(r.ref);
    expect(await retrieveIntent(client, r.ref)).toEqual({ outcome: 'approved', ref: r.ref });
  });

  it('failing the 3DS challenge → the intent reads declined with authentication_failed', async () => {
    const r = await createAndConfirmPayment(client, payment('4000002760003184'));
    if (r.outcome !== 'requires_action') throw new Error(`expected requires_action, got ${r.outcome}`);
    await answerChallenge(r.redirectUrl, 'fail');
    expect(await retrieveIntent(client, r.ref)).toMatchObject({ outcome: 'declined', reason: 'authentication_failed' });
  });

  it('an intent still processing → in_flight (processing), then approved once it settles', async () => {
    s.faults.inject({ kind: 'processing' }, { match: { path: /^\/v1\/payment_intents\/[^/]+\/confirm$/ } });
    const r = await createAndConfirmPayment(client, payment('4242424242424242'));
    expect(r).toMatchObject({ outcome: 'in_flight', cause: 'processing', mayHaveMoved: true });
    s.settleIntent(String((r as { ref: string }).ref), 'succeeded');
    expect(await retrieveIntent(client, String((r as { ref: string }).ref))).toMatchObject({ outcome: 'approved' });
  });
});

describe('adapter: subscriptions and off-session renewals', () => {
  async function subscribe(number: string) {
    const first = await createAndConfirmPayment(
      client,
      payment(number, { saveForOffSession: true, customer: { email: 'ada@example.com' } }),
    );
    return first;
  }

  it('the first charge keeps the card on a Customer; a renewal charges it off-session', async () => {
    const first = await subscribe('4242424242424242');
    expect(first.outcome).toBe('approved');
    const c = first.card;
    if (!c?.customerId) throw new Error('no customer');
    expect(s.account.state.paymentMethods.get(c.paymentMethodId)?.customerId).toBe(c.customerId);
    const renewal = await chargeOffSession(client, {
      idempotencyKey: renewalKey('rec_1', 0),
      amount: 4200,
      currency: 'EUR',
      customerId: c.customerId,
      paymentMethodId: c.paymentMethodId,
    });
    expect(renewal).toMatchObject({ outcome: 'approved' });
    // One call: the intent created and confirmed off-session, tagged with the charge's key.
    const last = s.requests.at(-1);
    expect(last?.path).toBe('/v1/payment_intents');
    expect(last?.idempotencyKey).toBe('paygate:rec_1:0:off_session');
    expect(last?.params).toMatchObject({
      confirm: 'true',
      off_session: 'true',
      metadata: { paygate_charge: 'paygate:rec_1:0' },
    });
  });

  it('4000 0025 0000 3155: 3DS on the first charge, then renewals go through without it', async () => {
    const first = await subscribe('4000002500003155');
    if (first.outcome !== 'requires_action' || !first.card?.customerId)
      throw new Error(`expected requires_action, got ${first.outcome}`);
    await answerChallenge(first.redirectUrl, 'pass');
    const renewal = await chargeOffSession(client, {
      idempotencyKey: renewalKey('rec_2', 0),
      amount: 4200,
      currency: 'eur',
      customerId: first.card.customerId,
      paymentMethodId: first.card.paymentMethodId,
    });
    expect(renewal).toMatchObject({ outcome: 'approved' });
  });

  it('4000 0027 6000 3184 off-session → declined with authentication_required', async () => {
    const first = await subscribe('4000002760003184');
    if (first.outcome !== 'requires_action' || !first.card?.customerId)
      throw new Error(`expected requires_action, got ${first.outcome}`);
    await answerChallenge(first.redirectUrl, 'pass');
    const renewal = await chargeOffSession(client, {
      idempotencyKey: renewalKey('rec_3', 1),
      amount: 4200,
      currency: 'eur',
      customerId: first.card.customerId,
      paymentMethodId: first.card.paymentMethodId,
    });
    expect(renewal).toMatchObject({ outcome: 'declined', reason: 'authentication_required' });
  });

  it('4000 0000 0000 0341 → the first charge is declined (it only attaches)', async () => {
    expect(await subscribe('4000000000000341')).toMatchObject({ outcome: 'declined', reason: 'card_declined' });
  });
});

describe('adapter: faults are in flight, never declines', () => {
  it('a timeout after the charge; the retry with the same key finds the same intent — one charge, not two', async () => {
    const slow = createStripeClient({ secretKey: s.account.secretKey, apiUrl: s.url, timeoutMs: 300 });
    const input = payment('4242424242424242');
    s.faults.inject({ kind: 'timeout' }, { match: { path: CONFIRM } });
    const first = await createAndConfirmPayment(slow, input);
    expect(first).toMatchObject({ outcome: 'in_flight', cause: 'timeout', ref: intents()[0]?.id, mayHaveMoved: true });
    expect(charges()).toHaveLength(1);
    const c = first.card;
    if (!c) throw new Error('the card on file must be reported so the retry needs no card number');
    const retry = await createAndConfirmPayment(slow, {
      ...input,
      source: { paymentMethodId: c.paymentMethodId, customerId: c.customerId },
    });
    expect(retry).toMatchObject({ outcome: 'approved', ref: intents()[0]?.id });
    expect(intents()).toHaveLength(1);
    expect(charges()).toHaveLength(1);
    expect(s.requests.filter((r) => CONFIRM.test(r.path)).map((r) => r.replayed)).toEqual([false, true]);
  });

  it('a timeout on an off-session renewal, retried with the same key: one charge', async () => {
    const first = await createAndConfirmPayment(client, payment('4242424242424242', { saveForOffSession: true }));
    const c = first.card;
    if (!c?.customerId) throw new Error('no customer');
    const slow = createStripeClient({ secretKey: s.account.secretKey, apiUrl: s.url, timeoutMs: 300 });
    const input = {
      idempotencyKey: renewalKey('rec_9', 0),
      amount: 4200,
      currency: 'eur',
      customerId: c.customerId,
      paymentMethodId: c.paymentMethodId,
    };
    s.faults.inject({ kind: 'timeout' }, { match: { path: '/v1/payment_intents' } });
    expect(await chargeOffSession(slow, input)).toMatchObject({ outcome: 'in_flight', cause: 'timeout' });
    expect(await chargeOffSession(slow, input)).toMatchObject({ outcome: 'approved' });
    expect(charges()).toHaveLength(2);
  });

  it('an off-session renewal whose answer was lost, tried again after Stripe forgot the key: found by its tag, not charged twice', async () => {
    const first = await createAndConfirmPayment(client, payment('4242424242424242', { saveForOffSession: true }));
    const c = first.card;
    if (!c?.customerId) throw new Error('no customer');
    const slow = createStripeClient({ secretKey: s.account.secretKey, apiUrl: s.url, timeoutMs: 300 });
    const input = {
      idempotencyKey: renewalKey('rec_lost', 0),
      amount: 4200,
      currency: 'eur',
      customerId: c.customerId,
      paymentMethodId: c.paymentMethodId,
    };
    s.faults.inject({ kind: 'timeout' }, { match: { path: '/v1/payment_intents' } });
    expect(await chargeOffSession(slow, input)).toMatchObject({ outcome: 'in_flight', cause: 'timeout' });
    s.advanceClock(25 * 60 * 60 * 1000);
    const again = await chargeOffSession(client, { ...input, triedBefore: true });
    expect(again).toMatchObject({ outcome: 'approved', ref: intents().at(-1)?.id });
    expect(charges()).toHaveLength(2);
  });

  it('an off-session renewal tried before whose call never reached Stripe is charged once', async () => {
    const first = await createAndConfirmPayment(client, payment('4242424242424242', { saveForOffSession: true }));
    const c = first.card;
    if (!c?.customerId) throw new Error('no customer');
    const again = await chargeOffSession(client, {
      idempotencyKey: renewalKey('rec_never', 0),
      amount: 4200,
      currency: 'eur',
      customerId: c.customerId,
      paymentMethodId: c.paymentMethodId,
      triedBefore: true,
    });
    expect(again).toMatchObject({ outcome: 'approved' });
    expect(charges()).toHaveLength(2);
  });

  // A renewal taken over on a subscription cancelled since (services/renew/charge.ts): asked, never charged.
  it('lookOnly: a renewal key no charge was made under answers unmade, and nothing is created at Stripe', async () => {
    const first = await createAndConfirmPayment(client, payment('4242424242424242', { saveForOffSession: true }));
    const c = first.card;
    if (!c?.customerId) throw new Error('no customer');
    const before = intents().length;
    const r = await chargeOffSession(client, {
      idempotencyKey: renewalKey('rec_dead_run', 0),
      amount: 4200,
      currency: 'eur',
      customerId: c.customerId,
      paymentMethodId: c.paymentMethodId,
      lookOnly: true,
    });
    expect(r).toMatchObject({ outcome: 'declined', unmade: true });
    expect(intents()).toHaveLength(before);
    expect(s.requests.filter((q) => q.method === 'POST' && q.path === '/v1/payment_intents')).toHaveLength(before);
  });

  it('lookOnly: the charge a dead run made under the key is found by its tag and answered, not made again', async () => {
    const first = await createAndConfirmPayment(client, payment('4242424242424242', { saveForOffSession: true }));
    const c = first.card;
    if (!c?.customerId) throw new Error('no customer');
    const input = {
      idempotencyKey: renewalKey('rec_dead_after_charge', 0),
      amount: 4200,
      currency: 'eur',
      customerId: c.customerId,
      paymentMethodId: c.paymentMethodId,
    };
    const made = await chargeOffSession(client, input);
    expect(made).toMatchObject({ outcome: 'approved' });
    const again = await chargeOffSession(client, { ...input, lookOnly: true });
    expect(again).toEqual(made);
    expect(charges()).toHaveLength(2);
  });

  it.each([
    ['rate_limit', 'rate_limited', false],
    ['server_error', 'server_error', true],
  ] as const)(
    "a %s on the intent call that lasts past the caller's patience → in_flight (%s), and the retry with the same key is approved",
    async (kind, cause, mayHaveMoved) => {
      const input = payment('4242424242424242');
      s.faults.inject({ kind }, { match: { path: CONFIRM } });
      const first = await impatient(() => createAndConfirmPayment(client, input));
      expect(first).toMatchObject({ outcome: 'in_flight', cause, mayHaveMoved });
      const c = first.card;
      if (!c) throw new Error('no card');
      const retry = await createAndConfirmPayment(client, {
        ...input,
        source: { paymentMethodId: c.paymentMethodId, customerId: null },
      });
      expect(retry.outcome).toBe('approved');
      expect(charges()).toHaveLength(1);
    },
  );

  it('a 500 whose result Stripe stored keeps answering in_flight on the same key; reading the intent shows the truth', async () => {
    const input = payment('4242424242424242');
    s.faults.inject({ kind: 'server_error', executed: true }, { match: { path: CONFIRM } });
    const first = await createAndConfirmPayment(client, input);
    const c = first.card;
    if (!c || first.outcome !== 'in_flight' || !first.ref)
      throw new Error(`expected in_flight with a ref, got ${first.outcome}`);
    const again = await createAndConfirmPayment(client, {
      ...input,
      source: { paymentMethodId: c.paymentMethodId, customerId: null },
    });
    expect(again).toMatchObject({ outcome: 'in_flight', cause: 'server_error', ref: first.ref });
    expect(await retrieveIntent(client, first.ref)).toEqual({ outcome: 'approved', ref: first.ref });
    expect(charges()).toHaveLength(1);
  });

  it('resumePayment after Stripe forgot the keys (25 h later) reads the confirmed intent instead of charging again', async () => {
    const slow = createStripeClient({ secretKey: s.account.secretKey, apiUrl: s.url, timeoutMs: 300 });
    const input = payment('4242424242424242');
    s.faults.inject({ kind: 'timeout' }, { match: { path: CONFIRM } });
    const first = await createAndConfirmPayment(slow, input);
    if (first.outcome !== 'in_flight' || !first.ref)
      throw new Error(`expected in_flight with a ref, got ${first.outcome}`);
    s.advanceClock(25 * 60 * 60 * 1000);
    const r = await resumePayment(client, {
      idempotencyKey: input.idempotencyKey,
      intentId: first.ref,
      mode: { returnUrl: back.url },
    });
    expect(r).toEqual({ outcome: 'approved', ref: first.ref });
    expect(intents()).toHaveLength(1);
    expect(charges()).toHaveLength(1);
  });

  it('resumePayment confirms an intent whose confirm never ran (a 429 on it), once', async () => {
    const input = payment('4242424242424242');
    s.faults.inject({ kind: 'rate_limit' }, { match: { path: CONFIRM } });
    const first = await impatient(() => createAndConfirmPayment(client, input));
    if (first.outcome !== 'in_flight' || !first.ref)
      throw new Error(`expected in_flight with a ref, got ${first.outcome}`);
    expect(await retrieveIntent(client, first.ref)).toMatchObject({
      outcome: 'in_flight',
      cause: 'not_confirmed',
      mayHaveMoved: false,
    });
    const mode = { returnUrl: back.url };
    expect(
      await resumePayment(client, { idempotencyKey: input.idempotencyKey, intentId: first.ref, mode }),
    ).toMatchObject({ outcome: 'approved' });
    expect(
      await resumePayment(client, { idempotencyKey: input.idempotencyKey, intentId: first.ref, mode }),
    ).toMatchObject({ outcome: 'approved' });
    expect(charges()).toHaveLength(1);
  });

  it('resumePayment off-session on a card that needs authentication → declined authentication_required', async () => {
    const first = await createAndConfirmPayment(client, payment('4000002760003184', { saveForOffSession: true }));
    if (first.outcome !== 'requires_action' || !first.card?.customerId) throw new Error(first.outcome);
    await answerChallenge(first.redirectUrl, 'pass');
    const key = renewalKey('rec_r', 0);
    // An intent left unconfirmed (as by an earlier version's two calls, the confirm refused).
    const pending = await client.paymentIntents.create({
      amount: 4200,
      currency: 'eur',
      customer: first.card.customerId,
      payment_method: first.card.paymentMethodId,
    });
    expect(
      await resumePayment(client, { idempotencyKey: key, intentId: pending.id, mode: { offSession: true } }),
    ).toMatchObject({
      outcome: 'declined',
      reason: 'authentication_required',
    });
  });

  it('a fault on creating the (unconfirmed) intent → in_flight with mayHaveMoved false', async () => {
    s.faults.inject({ kind: 'server_error' }, { match: { path: '/v1/payment_intents' } });
    const r = await createAndConfirmPayment(client, payment('4242424242424242'));
    expect(r).toMatchObject({ outcome: 'in_flight', cause: 'server_error', mayHaveMoved: false });
    expect(charges()).toHaveLength(0);
  });

  it('a fault while creating the PaymentMethod → in_flight with mayHaveMoved false: nothing was charged', async () => {
    s.faults.inject({ kind: 'server_error' }, { match: { path: '/v1/payment_methods' } });
    const r = await createAndConfirmPayment(client, payment('4242424242424242'));
    expect(r).toMatchObject({ outcome: 'in_flight', cause: 'server_error', mayHaveMoved: false, card: null });
    expect(intents()).toHaveLength(0);
  });

  it('a refused connection (Stripe unreachable) → in_flight (network)', async () => {
    const dead = createStripeClient({ secretKey: s.account.secretKey, apiUrl: 'http://127.0.0.1:9' });
    expect(
      await chargeOffSession(dead, {
        idempotencyKey: renewalKey('rec_x', 0),
        amount: 1,
        currency: 'eur',
        customerId: 'cus_x',
        paymentMethodId: 'pm_x',
      }),
    ).toMatchObject({
      outcome: 'in_flight',
      cause: 'network',
    });
  });

  it('the same payment key reused with another amount → refused (idempotency_conflict), nothing charged twice', async () => {
    const input = payment('4242424242424242');
    const first = await createAndConfirmPayment(client, input);
    const c = first.card;
    if (!c) throw new Error('no card');
    const r = await createAndConfirmPayment(client, {
      ...input,
      amount: 1,
      source: { paymentMethodId: c.paymentMethodId, customerId: null },
    });
    expect(r).toMatchObject({ outcome: 'refused', cause: 'idempotency_conflict' });
    expect(charges()).toHaveLength(1);
  });
});

describe('adapter: keys and account set-up', () => {
  it('checkKey: a live key is valid', async () => {
    expect(await checkKey(client, s.account.secretKey)).toEqual({ ok: true, livemode: false });
  });

  it('checkKey: a revoked key is rejected with Stripe’s masked message', async () => {
    s.account.revokeKey();
    const r = await checkKey(client, s.account.secretKey);
    expect(r).toMatchObject({ ok: false, cause: 'key_rejected', message: expect.stringMatching(/Expired API Key/) });
    expect(JSON.stringify(r)).not.toContain(s.account.secretKey);
  });

  it('checkKey: a restricted key without Balance read → permission_denied; with it → valid', async () => {
    const without = s.account.createRestrictedKey(['balance']);
    expect(await checkKey(createStripeClient({ secretKey: without, apiUrl: s.url }), without)).toMatchObject({
      ok: false,
      cause: 'permission_denied',
    });
    const full = s.account.createRestrictedKey();
    expect(await checkKey(createStripeClient({ secretKey: full, apiUrl: s.url }), full)).toEqual({
      ok: true,
      livemode: false,
    });
  });

  it('a restricted key that may not create PaymentIntents → refused (permission_denied), nothing charged', async () => {
    const rk = s.account.createRestrictedKey(['payment_intents']);
    const r = await createAndConfirmPayment(
      createStripeClient({ secretKey: rk, apiUrl: s.url }),
      payment('4242424242424242'),
    );
    expect(r).toMatchObject({ outcome: 'refused', cause: 'permission_denied' });
    expect(charges()).toHaveLength(0);
  });

  it('checkKey: a publishable key or a webhook secret is refused without calling Stripe', async () => {
    expect(await checkKey(client, 'pk_test_abcdefghijklmnop')).toMatchObject({ ok: false, cause: 'malformed' });
    expect(await checkKey(client, 'whsec_abcdefghijklmnop')).toMatchObject({ ok: false, cause: 'malformed' });
    expect(s.requests).toHaveLength(0);
  });

  it('checkKey: Stripe unreachable → unreachable, not "bad key"', async () => {
    const dead = createStripeClient({ secretKey: s.account.secretKey, apiUrl: 'http://127.0.0.1:9' });
    expect(await checkKey(dead, s.account.secretKey)).toMatchObject({ ok: false, cause: 'unreachable' });
  });

  it('a charge with a revoked key → refused (key_rejected): nothing charged, nothing in flight', async () => {
    s.account.revokeKey();
    expect(await createAndConfirmPayment(client, payment('4242424242424242'))).toMatchObject({
      outcome: 'refused',
      cause: 'key_rejected',
    });
  });

  it('an account without raw card data access → refused (invalid_request) with Stripe’s explanation', async () => {
    s.account.setRawCardData(false);
    const r = await createAndConfirmPayment(client, payment('4242424242424242'));
    expect(r).toMatchObject({
      outcome: 'refused',
      cause: 'invalid_request',
      message: expect.stringMatching(/raw card data/),
    });
  });
});

describe('adapter: refunds', () => {
  async function paid(amount = 4200): Promise<string> {
    const r = await createAndConfirmPayment(client, payment('4242424242424242', { amount }));
    if (r.outcome !== 'approved') throw new Error(r.outcome);
    return r.ref;
  }

  it('partial and repeated refunds → refunded; beyond what is left → failed (amount_too_large)', async () => {
    const pi = await paid(1000);
    expect(await refundPayment(client, { refundId: 'ref_1', intentId: pi, amount: 400 })).toMatchObject({
      outcome: 'refunded',
    });
    expect(await refundPayment(client, { refundId: 'ref_2', intentId: pi, amount: 400 })).toMatchObject({
      outcome: 'refunded',
    });
    expect(await refundPayment(client, { refundId: 'ref_3', intentId: pi, amount: 201 })).toEqual({
      outcome: 'failed',
      ref: null,
      reason: 'amount_too_large',
    });
  });

  it('a pending refund → pending, and retrieveRefund reads it refunded once it settles', async () => {
    s.account.setRefundMode('pending');
    const pi = await paid();
    const r = await refundPayment(client, { refundId: 'ref_4', intentId: pi, amount: 100 });
    if (r.outcome !== 'pending') throw new Error(r.outcome);
    s.settleRefund(r.ref, 'succeeded');
    expect(await retrieveRefund(client, r.ref)).toEqual({ outcome: 'refunded', ref: r.ref });
  });

  it('a refund that times out, retried with the same key, is one refund', async () => {
    const pi = await paid(1000);
    const slow = createStripeClient({ secretKey: s.account.secretKey, apiUrl: s.url, timeoutMs: 300 });
    s.faults.inject({ kind: 'timeout' }, { match: { path: '/v1/refunds' } });
    const input = { refundId: 'ref_5', intentId: pi, amount: 700 };
    expect(await refundPayment(slow, input)).toMatchObject({
      outcome: 'in_flight',
      cause: 'timeout',
      mayHaveMoved: true,
    });
    expect(await refundPayment(slow, input)).toMatchObject({ outcome: 'refunded' });
    expect(s.account.state.refunds.size).toBe(1);
  });
  it('a refund whose 500 Stripe stored, tried again after Stripe forgot the key: its tagged Refund is adopted, not made twice', async () => {
    const pi = await paid(1000);
    s.faults.inject({ kind: 'server_error', executed: true }, { match: { path: '/v1/refunds' } });
    const input = { refundId: 'rfd_lost', intentId: pi, amount: 400 };
    expect(await refundPayment(client, input)).toMatchObject({ outcome: 'in_flight', mayHaveMoved: true });
    const [made] = [...s.account.state.refunds.values()];
    expect(made?.metadata).toEqual({ paygate_refund: 'rfd_lost' });
    s.advanceClock(25 * 3600_000);
    expect(await refundPayment(client, { ...input, triedBefore: true })).toEqual({
      outcome: 'refunded',
      ref: made?.id,
    });
    expect(s.account.state.refunds.size).toBe(1);
    expect(s.requests.filter((q) => q.method === 'POST' && q.path === '/v1/refunds')).toHaveLength(1);
  });

  it('a refund tried before whose call never reached Stripe (no tagged Refund) is made once, with its key', async () => {
    const pi = await paid(1000);
    const r = await refundPayment(client, { refundId: 'rfd_never', intentId: pi, amount: 300, triedBefore: true });
    expect(r).toMatchObject({ outcome: 'refunded' });
    expect(s.account.state.refunds.size).toBe(1);
    expect(s.requests.find((q) => q.method === 'POST' && q.path === '/v1/refunds')?.idempotencyKey).toBe(
      refundKey('rfd_never'),
    );
  });

  it('a refund tried before while Stripe cannot be asked stays in flight: nothing is sent', async () => {
    const pi = await paid(1000);
    s.faults.inject({ kind: 'server_error' }, { match: { method: 'GET', path: '/v1/refunds' } });
    expect(
      await refundPayment(client, { refundId: 'rfd_later', intentId: pi, amount: 300, triedBefore: true }),
    ).toMatchObject({ outcome: 'in_flight', mayHaveMoved: true });
    expect(s.requests.filter((q) => q.method === 'POST' && q.path === '/v1/refunds')).toHaveLength(0);
  });
});

describe('adapter: webhooks', () => {
  const verify = (i: number, now = Date.now()) => {
    const r = hook.received[i];
    return verifyWebhook({
      payload: r?.rawBody ?? '',
      signatureHeader: r?.headers['stripe-signature'] as string | undefined,
      secret: s.account.webhookSecret,
      now,
    });
  };

  it('each of the four events verifies and maps onto what it settles', async () => {
    s.account.setRefundMode('pending');
    const ok = await createAndConfirmPayment(client, payment('4242424242424242'));
    const bad = await createAndConfirmPayment(client, payment('4000000000009995'));
    const refund = await refundPayment(client, {
      refundId: 'ref_w',
      intentId: String((ok as { ref: string }).ref),
      amount: 200,
    });
    s.settleRefund(String((refund as { ref: string }).ref), 'succeeded');
    await s.webhooksIdle();
    const byType = Object.fromEntries(hook.received.map((_, i) => verify(i)).map((v) => [v.ok ? v.type : 'bad', v]));
    expect(byType['payment_intent.succeeded']).toMatchObject({
      ok: true,
      settlement: { kind: 'payment', intentId: (ok as { ref: string }).ref, result: { outcome: 'approved' } },
    });
    expect(byType['payment_intent.payment_failed']).toMatchObject({
      settlement: {
        kind: 'payment',
        intentId: (bad as { ref: string }).ref,
        result: { outcome: 'declined', reason: 'insufficient_funds' },
      },
    });
    expect(byType['charge.refunded']).toMatchObject({
      settlement: { kind: 'charge_refunded', intentId: (ok as { ref: string }).ref, amountRefunded: 200 },
    });
    expect(byType['refund.updated']).toMatchObject({
      settlement: {
        kind: 'refund',
        refundId: (refund as { ref: string }).ref,
        intentId: (ok as { ref: string }).ref,
        result: { outcome: 'refunded' },
      },
    });
  });

  it('a bad signature, a missing header or an old timestamp is refused', async () => {
    await createAndConfirmPayment(client, payment('4242424242424242'));
    await s.webhooksIdle();
    const r = hook.received[0];
    expect(
      verifyWebhook({
        payload: r?.rawBody ?? '',
        signatureHeader: r?.headers['stripe-signature'] as string,
        secret: 'whsec_wrong',
        now: Date.now(),
      }),
    ).toMatchObject({ ok: false });
    expect(
      verifyWebhook({
        payload: r?.rawBody ?? '',
        signatureHeader: undefined,
        secret: s.account.webhookSecret,
        now: Date.now(),
      }),
    ).toMatchObject({ ok: false });
    expect(verify(0, Date.now() + 10 * 60 * 1000)).toMatchObject({ ok: false });
    expect(verify(0)).toMatchObject({ ok: true });
  });

  it('a webhook delivered twice verifies twice with the same event id (the caller settles once)', async () => {
    s.faults.inject({ kind: 'webhook_twice' }, { match: { path: CONFIRM } });
    await createAndConfirmPayment(client, payment('4242424242424242'));
    await s.webhooksIdle();
    const [a, b] = [verify(0), verify(1)];
    expect(a.ok && b.ok && a.eventId === b.eventId).toBe(true);
  });
});
