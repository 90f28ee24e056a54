import type Stripe from 'stripe';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { abandonIntent, abandonSetup } from '../../src/channel/stripe/index.js';
import { cardPm, officialClient, rejected } from '../helpers/stripe.js';
import { startStripeStandin, type StripeStandin } from '../helpers/stripe-standin/index.js';

/** The stand-in's PaymentIntent and SetupIntent cancels and key roll, and the adapter's abandonIntent / abandonSetup against them. */
let s: StripeStandin;
let stripe: Stripe;
beforeEach(async () => {
  s = await startStripeStandin();
  stripe = officialClient(s);
});
afterEach(async () => s.close());

async function waitingOnChallenge(): Promise<Stripe.PaymentIntent> {
  const pm = await cardPm(stripe, '4000002500003155');
  const pi = await stripe.paymentIntents.create({
    amount: 700,
    currency: 'usd',
    payment_method: pm.id,
    confirm: true,
    return_url: 'http://127.0.0.1:9/back',
  });
  expect(pi.status).toBe('requires_action');
  return pi;
}

describe('stand-in: POST /v1/payment_intents/:id/cancel', () => {
  it('cancels an intent waiting on its challenge, with the reason; the same key replays; the challenge can no longer pass', async () => {
    const pi = await waitingOnChallenge();
    const c = await stripe.paymentIntents.cancel(
      pi.id,
      { cancellation_reason: 'abandoned' },
      { idempotencyKey: 'c-1' },
    );
    expect(c).toMatchObject({ id: pi.id, status: 'canceled', cancellation_reason: 'abandoned' });
    expect(typeof c.canceled_at).toBe('number');
    const again = await stripe.paymentIntents.cancel(
      pi.id,
      { cancellation_reason: 'abandoned' },
      { idempotencyKey: 'c-1' },
    );
    expect(again.lastResponse.headers['idempotent-replayed']).toBe('true');
    await fetch(
      `${s.url}/3ds/${pi.id}/complete?client_secret=${encodeURIComponent(pi.client_secret ?? '')}&outcome=pass`,
      { redirect: 'manual' },
    );
    expect((await stripe.paymentIntents.retrieve(pi.id)).status).toBe('canceled');
    expect(s.events.some((e) => e.type === 'payment_intent.canceled')).toBe(true);
  });

  it('a succeeded intent cannot be cancelled: 400 payment_intent_unexpected_state', async () => {
    const pm = await cardPm(stripe, '4242424242424242');
    const pi = await stripe.paymentIntents.create({
      amount: 700,
      currency: 'usd',
      payment_method: pm.id,
      confirm: true,
    });
    const err = await rejected(stripe.paymentIntents.cancel(pi.id, { cancellation_reason: 'abandoned' }));
    expect(err).toMatchObject({ statusCode: 400, code: 'payment_intent_unexpected_state' });
  });
});

async function setupWaitingOnChallenge(): Promise<Stripe.SetupIntent> {
  const pm = await cardPm(stripe, '4000002500003155');
  const cus = await stripe.customers.create({});
  const si = await stripe.setupIntents.create({
    customer: cus.id,
    payment_method: pm.id,
    usage: 'off_session',
    confirm: true,
    return_url: 'http://127.0.0.1:9/back',
  });
  expect(si.status).toBe('requires_action');
  return si;
}
const finishSetup = (si: Stripe.SetupIntent, outcome: 'pass' | 'fail') =>
  fetch(
    `${s.url}/3ds/${si.id}/complete?client_secret=${encodeURIComponent(si.client_secret ?? '')}&outcome=${outcome}`,
    { redirect: 'manual' },
  );

describe('stand-in: POST /v1/setup_intents/:id/cancel', () => {
  it('cancels a SetupIntent waiting on its challenge, with the reason, and emits setup_intent.canceled; the challenge can no longer save the card', async () => {
    const si = await setupWaitingOnChallenge();
    const c = await stripe.setupIntents.cancel(si.id, { cancellation_reason: 'abandoned' }, { idempotencyKey: 'sc-1' });
    expect(c).toMatchObject({ id: si.id, status: 'canceled', cancellation_reason: 'abandoned' });
    await finishSetup(si, 'pass');
    expect((await stripe.setupIntents.retrieve(si.id)).status).toBe('canceled');
    expect(
      s.events
        .filter((e) => e.type === 'setup_intent.canceled')
        .map((e) => (e.data as { object: { id: string } }).object.id),
    ).toEqual([si.id]);
  });

  it('a succeeded or canceled SetupIntent cannot be cancelled (400 setup_intent_unexpected_state); `fraudulent` is no reason for one', async () => {
    const si = await setupWaitingOnChallenge();
    const bad = await rejected(stripe.setupIntents.cancel(si.id, { cancellation_reason: 'fraudulent' as 'abandoned' }));
    expect(bad).toMatchObject({ statusCode: 400, param: 'cancellation_reason' });
    await finishSetup(si, 'pass');
    expect(await rejected(stripe.setupIntents.cancel(si.id))).toMatchObject({
      statusCode: 400,
      code: 'setup_intent_unexpected_state',
    });
    const other = await setupWaitingOnChallenge();
    await stripe.setupIntents.cancel(other.id);
    expect(await rejected(stripe.setupIntents.cancel(other.id))).toMatchObject({
      statusCode: 400,
      code: 'setup_intent_unexpected_state',
    });
  });
});

describe('stand-in: rollKey', () => {
  it('the old key answers 401 Expired, the new one works', async () => {
    const old = s.account.secretKey;
    const fresh = s.account.rollKey();
    expect(fresh).not.toBe(old);
    expect(s.account.secretKey).toBe(fresh);
    const err = await rejected(officialClient(s, { key: old }).balance.retrieve());
    expect(err).toMatchObject({ statusCode: 401 });
    expect(err.message).toMatch(/^Expired API Key provided/);
    expect((await officialClient(s, { key: fresh }).balance.retrieve()).object).toBe('balance');
  });
});

describe('adapter: abandonIntent', () => {
  it('waiting on the challenge → cancelled (abandoned, key …:cancel); already cancelled → cancelled without a second cancel', async () => {
    const pi = await waitingOnChallenge();
    expect(await abandonIntent(stripe, { intentId: pi.id, idempotencyKey: 'paygate:txn_1:0' })).toEqual({
      outcome: 'cancelled',
      ref: pi.id,
    });
    expect(s.account.state.intents.get(pi.id)?.cancellationReason).toBe('abandoned');
    expect(await abandonIntent(stripe, { intentId: pi.id, idempotencyKey: 'paygate:txn_1:0' })).toEqual({
      outcome: 'cancelled',
      ref: pi.id,
    });
    expect(s.requests.filter((q) => q.path.endsWith('/cancel')).map((q) => q.idempotencyKey)).toEqual([
      'paygate:txn_1:0:cancel',
    ]);
  });

  it('paid meanwhile → approved, never cancelled; a revoked key → refused', async () => {
    const pi = await waitingOnChallenge();
    await fetch(
      `${s.url}/3ds/${pi.id}/complete?client_secret=${encodeURIComponent(pi.client_secret ?? '')}&outcome=pass`,
      { redirect: 'manual' },
    );
    expect(await abandonIntent(stripe, { intentId: pi.id, idempotencyKey: 'paygate:txn_2:0' })).toMatchObject({
      outcome: 'approved',
      ref: pi.id,
    });
    expect(s.requests.filter((q) => q.path.endsWith('/cancel'))).toHaveLength(0);
    s.account.revokeKey();
    expect(await abandonIntent(stripe, { intentId: pi.id, idempotencyKey: 'paygate:txn_2:0' })).toMatchObject({
      outcome: 'refused',
      cause: 'key_rejected',
    });
  });
});

describe('adapter: abandonSetup', () => {
  it('waiting on the challenge → cancelled (abandoned, key …:cancel); already cancelled → cancelled without a second cancel', async () => {
    const si = await setupWaitingOnChallenge();
    expect(await abandonSetup(stripe, { intentId: si.id, idempotencyKey: 'paygate:txn_3:0' })).toEqual({
      outcome: 'cancelled',
      ref: si.id,
    });
    expect(s.account.state.setupIntents.get(si.id)?.cancellationReason).toBe('abandoned');
    expect(await abandonSetup(stripe, { intentId: si.id, idempotencyKey: 'paygate:txn_3:0' })).toEqual({
      outcome: 'cancelled',
      ref: si.id,
    });
    expect(s.requests.filter((q) => q.path.endsWith('/cancel')).map((q) => q.idempotencyKey)).toEqual([
      'paygate:txn_3:0:cancel',
    ]);
  });

  it('saved meanwhile → approved, never cancelled; a failed challenge → cancelled at Stripe but reported declined authentication_failed', async () => {
    const ok = await setupWaitingOnChallenge();
    await finishSetup(ok, 'pass');
    expect(await abandonSetup(stripe, { intentId: ok.id, idempotencyKey: 'paygate:txn_4:0' })).toMatchObject({
      outcome: 'approved',
      ref: ok.id,
    });
    expect(s.requests.filter((q) => q.path.endsWith('/cancel'))).toHaveLength(0);
    const failed = await setupWaitingOnChallenge();
    await finishSetup(failed, 'fail');
    expect(await abandonSetup(stripe, { intentId: failed.id, idempotencyKey: 'paygate:txn_5:0' })).toMatchObject({
      outcome: 'declined',
      ref: failed.id,
      reason: 'authentication_failed',
    });
    expect(s.account.state.setupIntents.get(failed.id)?.status).toBe('canceled');
  });
});
