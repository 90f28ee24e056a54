import Stripe from 'stripe';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { cardPm, officialClient, rejected } from '../helpers/stripe.js';
import { signatureHeader, startStripeStandin, type StripeStandin } from '../helpers/stripe-standin/index.js';

let s: StripeStandin;
let stripe: Stripe;
let hook: Receiver;
beforeEach(async () => {
  s = await startStripeStandin();
  stripe = officialClient(s);
  hook = await startReceiver();
  s.account.setWebhookUrl(hook.url('/webhook'));
});
afterEach(async () => {
  await s.close();
  await hook.close();
});

const replayed = (o: { lastResponse: { headers: Record<string, string> } }) =>
  o.lastResponse.headers['idempotent-replayed'];

async function intentParams(number = '4242424242424242', amount = 1500): Promise<Stripe.PaymentIntentCreateParams> {
  const pm = await cardPm(stripe, number);
  return { amount, currency: 'usd', payment_method: pm.id, confirm: true, return_url: 'http://127.0.0.1:9/back' };
}

const verified = (secret: string) =>
  hook.received.map((r) => stripe.webhooks.constructEvent(r.rawBody, String(r.headers['stripe-signature']), secret));

describe('stand-in: Idempotency-Key with Stripe’s semantics', () => {
  it('the same key with the same parameters replays the stored answer with Idempotent-Replayed: true', async () => {
    const params = await intentParams();
    const first = await stripe.paymentIntents.create(params, { idempotencyKey: 'k-1' });
    const second = await stripe.paymentIntents.create(params, { idempotencyKey: 'k-1' });
    expect(second.id).toBe(first.id);
    expect(replayed(first)).toBeUndefined();
    expect(replayed(second)).toBe('true');
    expect(s.account.state.intents.size).toBe(1);
    expect(s.account.state.charges.size).toBe(1);
    expect(s.requests.filter((r) => r.path === '/v1/payment_intents').map((r) => r.replayed)).toEqual([false, true]);
  });

  it('the same key with other parameters answers 400 idempotency_error and runs nothing', async () => {
    const params = await intentParams();
    await stripe.paymentIntents.create(params, { idempotencyKey: 'k-2' });
    const err = await stripe.paymentIntents
      .create({ ...params, amount: 1600 }, { idempotencyKey: 'k-2' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Stripe.errors.StripeIdempotencyError);
    expect(err).toMatchObject({ statusCode: 400 });
    expect(s.account.state.intents.size).toBe(1);
  });

  it('a decline (402) is stored and replayed like a success', async () => {
    const params = await intentParams('4000000000000002');
    const a = await rejected(stripe.paymentIntents.create(params, { idempotencyKey: 'k-3' }));
    const b = await rejected(stripe.paymentIntents.create(params, { idempotencyKey: 'k-3' }));
    expect(b.payment_intent?.id).toBe(a.payment_intent?.id);
    expect(b.headers?.['idempotent-replayed']).toBe('true');
    expect(s.account.state.intents.size).toBe(1);
  });

  it('a request that failed validation stores nothing: the key can then be used with corrected parameters', async () => {
    const params = await intentParams();
    await expect(
      stripe.paymentIntents.create({ ...params, currency: 'not-a-currency' }, { idempotencyKey: 'k-4' }),
    ).rejects.toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    const ok = await stripe.paymentIntents.create(params, { idempotencyKey: 'k-4' });
    expect(ok.status).toBe('succeeded');
  });

  it('keys are kept 24 hours of the stand-in’s clock: after that the same key runs again', async () => {
    const customer = await stripe.customers.create({}, { idempotencyKey: 'c-1' });
    s.advanceClock(24 * 60 * 60 * 1000 - 1000);
    expect((await stripe.customers.create({}, { idempotencyKey: 'c-1' })).id).toBe(customer.id);
    s.advanceClock(2000);
    expect((await stripe.customers.create({}, { idempotencyKey: 'c-1' })).id).not.toBe(customer.id);
  });

  it('keys are per account', async () => {
    const other = officialClient(s, { key: s.createAccount().secretKey });
    const a = await stripe.customers.create({}, { idempotencyKey: 'shared' });
    const b = await other.customers.create({}, { idempotencyKey: 'shared' });
    expect(b.id).not.toBe(a.id);
  });
});

describe('stand-in: refunds', () => {
  it('partial and repeated refunds up to the charge, then amount_too_large and charge_already_refunded', async () => {
    const pi = await stripe.paymentIntents.create(await intentParams('4242424242424242', 1000));
    const r1 = await stripe.refunds.create({ payment_intent: pi.id, amount: 300 });
    const r2 = await stripe.refunds.create({ payment_intent: pi.id, amount: 300 });
    expect([r1.status, r2.status, r1.amount, r2.charge]).toEqual(['succeeded', 'succeeded', 300, pi.latest_charge]);
    await expect(stripe.refunds.create({ payment_intent: pi.id, amount: 401 })).rejects.toMatchObject({
      code: 'amount_too_large',
    });
    const rest = await stripe.refunds.create({ payment_intent: pi.id });
    expect(rest.amount).toBe(400);
    await expect(stripe.refunds.create({ payment_intent: pi.id, amount: 1 })).rejects.toMatchObject({
      code: 'charge_already_refunded',
    });
  });

  it('an intent without a successful charge cannot be refunded', async () => {
    const err = await rejected(stripe.paymentIntents.create(await intentParams('4000000000000002')));
    await expect(stripe.refunds.create({ payment_intent: err.payment_intent?.id ?? '' })).rejects.toMatchObject({
      code: 'charge_not_refundable',
    });
  });

  it('in pending mode a refund answers pending, stays pending on GET, and settles later with refund.updated', async () => {
    s.account.setRefundMode('pending');
    const pi = await stripe.paymentIntents.create(await intentParams());
    const r = await stripe.refunds.create({ payment_intent: pi.id, amount: 500 });
    expect(r.status).toBe('pending');
    expect((await stripe.refunds.retrieve(r.id)).status).toBe('pending');
    // A pending refund already counts against what is left to refund.
    await expect(stripe.refunds.create({ payment_intent: pi.id, amount: 1001 })).rejects.toMatchObject({
      code: 'amount_too_large',
    });
    s.settleRefund(r.id, 'succeeded');
    expect((await stripe.refunds.retrieve(r.id)).status).toBe('succeeded');
    await s.webhooksIdle();
    const updated = verified(s.account.webhookSecret).find((e) => e.type === 'refund.updated');
    expect(updated?.data.object).toMatchObject({ id: r.id, status: 'succeeded' });
    expect(updated?.data.previous_attributes).toEqual({ status: 'pending' });
  });

  it('a pending refund that fails frees the amount again', async () => {
    s.account.setRefundMode('pending');
    const pi = await stripe.paymentIntents.create(await intentParams('4242424242424242', 800));
    const r = await stripe.refunds.create({ payment_intent: pi.id });
    s.settleRefund(r.id, 'failed');
    expect(await stripe.refunds.retrieve(r.id)).toMatchObject({
      status: 'failed',
      failure_reason: 'expired_or_canceled_card',
    });
    s.account.setRefundMode('succeeded');
    expect((await stripe.refunds.create({ payment_intent: pi.id })).amount).toBe(800);
  });
});

describe('stand-in: signed webhooks', () => {
  it('payment_intent.succeeded, payment_intent.payment_failed and charge.refunded arrive signed and verify with constructEvent', async () => {
    const ok = await stripe.paymentIntents.create(await intentParams());
    await stripe.paymentIntents.create(await intentParams('4000000000009995')).catch(() => undefined);
    await stripe.refunds.create({ payment_intent: ok.id, amount: 100 });
    await s.webhooksIdle();
    const events = verified(s.account.webhookSecret);
    expect(events.map((e) => e.type).sort()).toEqual([
      'charge.refunded',
      'payment_intent.payment_failed',
      'payment_intent.succeeded',
    ]);
    expect(events.find((e) => e.type === 'payment_intent.succeeded')?.data.object).toMatchObject({
      id: ok.id,
      status: 'succeeded',
    });
    expect(events.find((e) => e.type === 'charge.refunded')?.data.object).toMatchObject({
      payment_intent: ok.id,
      amount_refunded: 100,
    });
    expect(hook.received.every((r) => r.path === '/webhook')).toBe(true);
  });

  it('the signature is t=…,v1=HMAC-SHA256(secret, "t.payload") over the exact bytes sent', async () => {
    await stripe.paymentIntents.create(await intentParams());
    await s.webhooksIdle();
    const r = hook.received[0];
    const header = String(r?.headers['stripe-signature']);
    const t = Number(/^t=(\d+),v1=[0-9a-f]{64}$/.exec(header)?.[1]);
    expect(signatureHeader(r?.rawBody ?? '', s.account.webhookSecret, t)).toBe(header);
  });

  it('a tampered payload or another secret does not verify', async () => {
    await stripe.paymentIntents.create(await intentParams());
    await s.webhooksIdle();
    const r = hook.received[0];
    const sig = String(r?.headers['stripe-signature']);
    expect(() =>
      stripe.webhooks.constructEvent((r?.rawBody ?? '').replace('succeeded', 'failed'), sig, s.account.webhookSecret),
    ).toThrow(Stripe.errors.StripeSignatureVerificationError);
    expect(() => stripe.webhooks.constructEvent(r?.rawBody ?? '', sig, 'whsec_other')).toThrow(
      Stripe.errors.StripeSignatureVerificationError,
    );
  });

  it('redeliver sends the same event (same id) again', async () => {
    await stripe.paymentIntents.create(await intentParams());
    await s.webhooksIdle();
    const id = String(s.events[0]?.id);
    await s.redeliver(id);
    expect(verified(s.account.webhookSecret).map((e) => e.id)).toEqual([id, id]);
  });
});

describe('stand-in: faults', () => {
  it('timeout after the charge: the intent is made, the client times out, the same key then replays the same intent', async () => {
    const slow = officialClient(s, { timeoutMs: 300 });
    const params = await intentParams();
    s.faults.inject({ kind: 'timeout' }, { match: { method: 'POST', path: '/v1/payment_intents' } });
    const err = await slow.paymentIntents.create(params, { idempotencyKey: 'pay-1' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Stripe.errors.StripeConnectionError);
    expect((err as Error).message).toMatch(/timeout/);
    expect(s.account.state.intents.size).toBe(1);
    const again = await slow.paymentIntents.create(params, { idempotencyKey: 'pay-1' });
    expect(again.id).toBe([...s.account.state.intents.keys()][0]);
    expect(replayed(again)).toBe('true');
    expect(s.account.state.charges.size).toBe(1);
  });

  it('timeout with afterMs: the answer comes, but after the client gave up', async () => {
    const slow = officialClient(s, { timeoutMs: 200 });
    s.faults.inject({ kind: 'timeout', afterMs: 400 }, { match: { path: '/v1/customers' } });
    await expect(slow.customers.create({})).rejects.toBeInstanceOf(Stripe.errors.StripeConnectionError);
    expect(s.requests.at(-1)?.status).toBeNull();
    await new Promise((r) => setTimeout(r, 500));
    expect(s.requests.at(-1)?.status).toBe(200);
  });

  it('a 500 before running: api_error, nothing made, and the same key then runs', async () => {
    const params = await intentParams();
    s.faults.inject({ kind: 'server_error' }, { match: { path: '/v1/payment_intents' } });
    const err = await stripe.paymentIntents.create(params, { idempotencyKey: 'pay-2' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Stripe.errors.StripeAPIError);
    expect(err).toMatchObject({ statusCode: 500 });
    expect(s.account.state.intents.size).toBe(0);
    expect((await stripe.paymentIntents.create(params, { idempotencyKey: 'pay-2' })).status).toBe('succeeded');
  });

  it('a 500 after running is the stored result: the same key replays the 500 (Stripe’s documented rule)', async () => {
    const params = await intentParams();
    s.faults.inject({ kind: 'server_error', executed: true }, { match: { path: '/v1/payment_intents' } });
    await expect(stripe.paymentIntents.create(params, { idempotencyKey: 'pay-3' })).rejects.toBeInstanceOf(
      Stripe.errors.StripeAPIError,
    );
    expect(s.account.state.intents.size).toBe(1);
    const err = await rejected(stripe.paymentIntents.create(params, { idempotencyKey: 'pay-3' }));
    expect(err.statusCode).toBe(500);
    expect(err.headers?.['idempotent-replayed']).toBe('true');
    expect(s.account.state.intents.size).toBe(1);
  });

  it('a 429 with Stripe’s rate-limit body, nothing made, for the next N calls only', async () => {
    s.faults.inject({ kind: 'rate_limit' }, { times: 2 });
    for (let i = 0; i < 2; i++) {
      const err = await stripe.customers.create({}).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(Stripe.errors.StripeRateLimitError);
      expect(err).toMatchObject({ statusCode: 429, code: 'rate_limit' });
    }
    expect(s.account.state.customers.size).toBe(0);
    await stripe.customers.create({});
    expect(s.account.state.customers.size).toBe(1);
  });

  it('a fault matched by idempotency key hits that request only', async () => {
    s.faults.inject({ kind: 'rate_limit' }, { match: { idempotencyKey: 'only-me' } });
    await stripe.customers.create({}, { idempotencyKey: 'not-me' });
    await expect(stripe.customers.create({}, { idempotencyKey: 'only-me' })).rejects.toBeInstanceOf(
      Stripe.errors.StripeRateLimitError,
    );
  });

  it('webhook delivered twice: the same event id arrives two times', async () => {
    s.faults.inject({ kind: 'webhook_twice' }, { match: { path: '/v1/payment_intents' } });
    await stripe.paymentIntents.create(await intentParams());
    await s.webhooksIdle();
    const events = verified(s.account.webhookSecret);
    expect(events).toHaveLength(2);
    expect(events[0]?.id).toBe(events[1]?.id);
  });

  it('webhook before the API answer: the event has arrived when the client gets its answer', async () => {
    s.faults.inject({ kind: 'webhook_first' }, { match: { path: '/v1/payment_intents' } });
    const pi = await stripe.paymentIntents.create(await intentParams());
    expect(hook.received).toHaveLength(1);
    expect(verified(s.account.webhookSecret)[0]?.data.object).toMatchObject({ id: pi.id });
  });

  it('processing: the intent stays processing until settled, then payment_intent.succeeded', async () => {
    s.faults.inject({ kind: 'processing' }, { match: { path: '/v1/payment_intents' } });
    const pi = await stripe.paymentIntents.create(await intentParams());
    expect(pi.status).toBe('processing');
    await s.webhooksIdle();
    expect(hook.received).toHaveLength(0);
    s.settleIntent(pi.id, 'succeeded');
    await s.webhooksIdle();
    expect((await stripe.paymentIntents.retrieve(pi.id)).status).toBe('succeeded');
    expect(verified(s.account.webhookSecret).map((e) => e.type)).toEqual(['payment_intent.succeeded']);
  });
});

describe('stand-in: request log', () => {
  it('records each call with its key and status, and masks the card number and CVC', async () => {
    await cardPm(stripe, '4242424242424242', '987');
    const [r] = s.requests;
    expect(r).toMatchObject({ method: 'POST', path: '/v1/payment_methods', status: 200, accountId: s.account.id });
    expect(r?.idempotencyKey).toMatch(/^stripe-node-retry-/);
    expect(r?.params).toMatchObject({ type: 'card', card: { number: '424242******4242', cvc: '***' } });
    expect(JSON.stringify(s.requests)).not.toContain('4242424242424242');
  });
});
