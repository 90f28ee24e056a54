import { readFileSync } from 'node:fs';
import Stripe from 'stripe';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { answerChallenge, cardPm, officialClient, startReturnPage, type ReturnPage } from '../helpers/stripe.js';
import { startStripeStandin, type StripeStandin } from '../helpers/stripe-standin/index.js';

let s: StripeStandin;
let stripe: Stripe;
let back: ReturnPage;
beforeEach(async () => {
  s = await startStripeStandin();
  stripe = officialClient(s);
  back = await startReturnPage();
});
afterEach(async () => {
  await s.close();
  await back.close();
});

const fixtures = JSON.parse(
  readFileSync(new URL('../helpers/stripe-standin/fixtures3.json', import.meta.url), 'utf8'),
) as {
  resources: Record<string, Record<string, unknown>>;
};

async function pay(number: string, extra: Partial<Stripe.PaymentIntentCreateParams> = {}) {
  const pm = await cardPm(stripe, number);
  return stripe.paymentIntents.create({
    amount: 2500,
    currency: 'eur',
    payment_method: pm.id,
    confirm: true,
    return_url: back.url,
    ...extra,
  });
}

async function cardError(p: Promise<unknown>): Promise<Stripe.errors.StripeCardError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(Stripe.errors.StripeCardError);
  return err as Stripe.errors.StripeCardError;
}

describe('stand-in: the documented test cards through the official client', () => {
  it('4242 4242 4242 4242 succeeds: the intent is succeeded with a charge for the amount', async () => {
    const pi = await pay('4242424242424242');
    expect(pi).toMatchObject({
      object: 'payment_intent',
      status: 'succeeded',
      amount: 2500,
      amount_received: 2500,
      currency: 'eur',
    });
    expect(pi.latest_charge).toMatch(/^ch_/);
    expect(pi.next_action).toBeNull();
  });

  it.each([
    ['4000000000000002', 'card_declined', 'generic_decline'],
    ['4000000000009995', 'card_declined', 'insufficient_funds'],
    ['4000000000000069', 'expired_card', 'expired_card'],
    ['4000000000000127', 'incorrect_cvc', 'incorrect_cvc'],
    ['4000000000000119', 'processing_error', 'processing_error'],
  ])(
    '%s is declined with code %s / decline_code %s, the intent left requires_payment_method',
    async (number, code, declineCode) => {
      const err = await cardError(pay(number));
      expect(err.statusCode).toBe(402);
      expect(err).toMatchObject({ code, decline_code: declineCode });
      expect(err.payment_intent).toMatchObject({
        status: 'requires_payment_method',
        last_payment_error: { code, decline_code: declineCode },
      });
      const again = await stripe.paymentIntents.retrieve(err.payment_intent?.id ?? '');
      expect(again.status).toBe('requires_payment_method');
    },
  );

  it('a number that fails the Luhn check is refused when the PaymentMethod is created (incorrect_number)', async () => {
    const err = await cardError(cardPm(stripe, '4242424242424241'));
    expect(err).toMatchObject({ code: 'incorrect_number', param: 'card[number]' });
    expect(s.account.state.paymentMethods.size).toBe(0);
  });

  it('4000 0025 0000 3155 asks for 3DS on-session; once set up with a customer, off-session charges succeed', async () => {
    const customer = await stripe.customers.create({ email: 'a@example.com' });
    const pi = await pay('4000002500003155', { customer: customer.id, setup_future_usage: 'off_session' });
    expect(pi.status).toBe('requires_action');
    expect(pi.next_action?.type).toBe('redirect_to_url');
    await answerChallenge(pi.next_action?.redirect_to_url?.url ?? '', 'pass');
    expect((await stripe.paymentIntents.retrieve(pi.id)).status).toBe('succeeded');
    const pm = await stripe.paymentMethods.retrieve(String(pi.payment_method));
    expect(pm.customer).toBe(customer.id);

    const renewal = await stripe.paymentIntents.create({
      amount: 2500,
      currency: 'eur',
      customer: customer.id,
      payment_method: pm.id,
      off_session: true,
      confirm: true,
    });
    expect(renewal.status).toBe('succeeded');
  });

  it('4000 0025 0000 3155 never set up: an off-session charge fails with authentication_required', async () => {
    const customer = await stripe.customers.create({});
    const pm = await cardPm(stripe, '4000002500003155');
    await stripe.paymentMethods.attach(pm.id, { customer: customer.id });
    const err = await cardError(
      stripe.paymentIntents.create({
        amount: 900,
        currency: 'eur',
        customer: customer.id,
        payment_method: pm.id,
        off_session: true,
        confirm: true,
      }),
    );
    expect(err).toMatchObject({ code: 'authentication_required', decline_code: 'authentication_required' });
  });

  it('4000 0027 6000 3184 asks for 3DS on-session and fails off-session with authentication_required even after set-up', async () => {
    const customer = await stripe.customers.create({});
    const pi = await pay('4000002760003184', { customer: customer.id, setup_future_usage: 'off_session' });
    expect(pi.status).toBe('requires_action');
    await answerChallenge(pi.next_action?.redirect_to_url?.url ?? '', 'pass');
    const err = await cardError(
      stripe.paymentIntents.create({
        amount: 900,
        currency: 'eur',
        customer: customer.id,
        payment_method: String(pi.payment_method),
        off_session: true,
        confirm: true,
      }),
    );
    expect(err.code).toBe('authentication_required');
    expect(err.payment_intent?.status).toBe('requires_payment_method');
  });

  it('4000 0000 0000 0341 attaches to a customer, then every charge is declined', async () => {
    const customer = await stripe.customers.create({});
    const pm = await cardPm(stripe, '4000000000000341');
    expect((await stripe.paymentMethods.attach(pm.id, { customer: customer.id })).customer).toBe(customer.id);
    for (const offSession of [false, true]) {
      const err = await cardError(
        stripe.paymentIntents.create({
          amount: 900,
          currency: 'eur',
          customer: customer.id,
          payment_method: pm.id,
          confirm: true,
          ...(offSession ? { off_session: true } : { return_url: back.url }),
        }),
      );
      expect(err).toMatchObject({ code: 'card_declined', decline_code: 'generic_decline' });
    }
  });

  it('a declining card cannot even be attached (only 0341 attaches)', async () => {
    const customer = await stripe.customers.create({});
    const pm = await cardPm(stripe, '4000000000000002');
    await cardError(stripe.paymentMethods.attach(pm.id, { customer: customer.id }));
  });

  it('a PaymentMethod used without a customer cannot be used again', async () => {
    const pi = await pay('4242424242424242');
    await expect(
      stripe.paymentIntents.create({
        amount: 100,
        currency: 'eur',
        payment_method: String(pi.payment_method),
        confirm: true,
      }),
    ).rejects.toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
  });

  it('an account without raw card data access refuses card numbers, as Stripe does', async () => {
    s.account.setRawCardData(false);
    const err = await cardPm(stripe, '4242424242424242').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect((err as Error).message).toMatch(/raw card data/);
  });

  it('answers are Stripe’s fixtures with only the scenario’s fields changed: same keys, untouched fields kept', async () => {
    const pi = await pay('4242424242424242');
    const pm = await stripe.paymentMethods.retrieve(String(pi.payment_method));
    const ch = s.account.state.charges.size;
    expect(ch).toBe(1);
    for (const [name, obj] of [
      ['payment_intent', pi],
      ['payment_method', pm],
    ] as const) {
      const fx = fixtures.resources[name] ?? {};
      expect(Object.keys(obj).sort()).toEqual(Object.keys(fx).sort());
    }
    expect(pi.capture_method).toBe(fixtures.resources.payment_intent?.capture_method);
    expect(pm.allow_redisplay).toBe(fixtures.resources.payment_method?.allow_redisplay);
    expect(pm.card).toMatchObject({ last4: '4242', brand: 'visa', exp_month: 12, checks: { cvc_check: 'pass' } });
  });
});

describe('stand-in: API keys', () => {
  it('GET /v1/balance answers the balance for a live key', async () => {
    expect(await stripe.balance.retrieve()).toMatchObject({ object: 'balance', livemode: false });
  });

  it('a revoked key answers 401 "Expired API Key provided" with the key masked', async () => {
    s.account.revokeKey();
    const err = await stripe.balance.retrieve().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Stripe.errors.StripeAuthenticationError);
    const e = err as Stripe.errors.StripeAuthenticationError;
    expect(e.statusCode).toBe(401);
    expect(e.message).toMatch(/^Expired API Key provided: sk_test_\*+/);
    expect(e.message).not.toContain(s.account.secretKey);
    expect(e.message.endsWith(s.account.secretKey.slice(-4))).toBe(true);
  });

  it('an unknown key answers 401 "Invalid API Key provided"', async () => {
    const other = officialClient(s, { key: 'sk_test_0000000000000000000000000' });
    await expect(other.balance.retrieve()).rejects.toThrow(/^Invalid API Key provided/);
  });

  it('a restricted key works on the resources it may use and answers 403 on the others', async () => {
    const rk = s.account.createRestrictedKey(['balance']);
    const restricted = officialClient(s, { key: rk });
    expect((await restricted.customers.create({})).id).toMatch(/^cus_/);
    const err = await restricted.balance.retrieve().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Stripe.errors.StripePermissionError);
    expect((err as Error).message).toMatch(/does not have the required permissions.*rak_balance_read/);
    expect((err as Error).message).not.toContain(rk);
  });

  it('accounts are separate: one account cannot read another’s intent', async () => {
    const pi = await pay('4242424242424242');
    const other = s.createAccount();
    const err = await officialClient(s, { key: other.secretKey })
      .paymentIntents.retrieve(pi.id)
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ statusCode: 404, code: 'resource_missing' });
  });
});

describe('stand-in: the 3DS hand-over page', () => {
  it('Complete: the intent succeeds and the browser lands on return_url with Stripe’s query parameters', async () => {
    const pi = await pay('4000000000003220');
    const redirect = pi.next_action?.redirect_to_url?.url ?? '';
    expect(redirect.startsWith(s.url)).toBe(true);
    const landed = await answerChallenge(redirect, 'pass');
    expect(landed.status).toBe(200);
    expect(await landed.text()).toBe('back at the shop');
    const hit = back.hits.at(-1);
    expect(hit?.pathname).toBe('/return');
    expect(Object.fromEntries(hit?.searchParams ?? [])).toEqual({
      payment_intent: pi.id,
      payment_intent_client_secret: pi.client_secret,
      redirect_status: 'succeeded',
    });
    expect((await stripe.paymentIntents.retrieve(pi.id)).status).toBe('succeeded');
  });

  it('Fail: the intent goes back to requires_payment_method with payment_intent_authentication_failure', async () => {
    const pi = await pay('4000000000003220');
    await answerChallenge(pi.next_action?.redirect_to_url?.url ?? '', 'fail');
    expect(back.hits.at(-1)?.searchParams.get('redirect_status')).toBe('failed');
    const after = await stripe.paymentIntents.retrieve(pi.id);
    expect(after).toMatchObject({
      status: 'requires_payment_method',
      last_payment_error: { code: 'payment_intent_authentication_failure' },
    });
  });

  it('a GET on …/complete?outcome=pass finishes it too, and a second visit changes nothing', async () => {
    const pi = await pay('4000000000003220');
    const u = new URL(pi.next_action?.redirect_to_url?.url ?? '');
    u.pathname += '/complete';
    u.searchParams.set('outcome', 'pass');
    expect((await fetch(u)).status).toBe(200);
    u.searchParams.set('outcome', 'fail');
    await fetch(u);
    expect((await stripe.paymentIntents.retrieve(pi.id)).status).toBe('succeeded');
    expect(back.hits.map((h) => h.searchParams.get('redirect_status'))).toEqual(['succeeded', 'succeeded']);
  });

  it('the page refuses a wrong client secret', async () => {
    const pi = await pay('4000000000003220');
    const u = new URL(pi.next_action?.redirect_to_url?.url ?? '');
    u.searchParams.set('client_secret', 'nope');
    expect((await fetch(u)).status).toBe(404);
  });

  it('without return_url the intent asks for use_stripe_sdk, which a server cannot hand over', async () => {
    const pm = await cardPm(stripe, '4000000000003220');
    const pi = await stripe.paymentIntents.create({
      amount: 500,
      currency: 'eur',
      payment_method: pm.id,
      confirm: true,
    });
    expect(pi.next_action?.type).toBe('use_stripe_sdk');
  });
});
