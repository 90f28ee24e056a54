import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_STRIPE_API_URL,
  DEFAULT_STRIPE_TIMEOUT_MS,
  failReasonOf,
  keyShapeError,
  parseStripeApiUrl,
  paymentKey,
  refundKey,
  renewalKey,
  stepKey,
  stripeApiUrlFrom,
  stripeTimeoutFrom,
} from '../../src/channel/stripe/index.js';
import { mapFault, mapIntent, scrub } from '../../src/channel/stripe/map.js';

describe('Stripe decline codes → failReason', () => {
  it.each([
    ['generic_decline', 'card_declined', 'card_declined'],
    ['insufficient_funds', 'card_declined', 'insufficient_funds'],
    ['lost_card', 'card_declined', 'card_declined'],
    ['stolen_card', 'card_declined', 'card_declined'],
    ['do_not_honor', 'card_declined', 'card_declined'],
    ['expired_card', 'expired_card', 'expired_card'],
    ['incorrect_cvc', 'incorrect_cvc', 'incorrect_cvc'],
    [null, 'invalid_cvc', 'incorrect_cvc'],
    ['processing_error', 'processing_error', 'processing_error'],
    ['try_again_later', 'card_declined', 'processing_error'],
    ['authentication_required', 'authentication_required', 'authentication_required'],
    [null, 'authentication_required', 'authentication_required'],
    [null, 'payment_intent_authentication_failure', 'authentication_failed'],
    ['something_new', 'card_declined', 'card_declined'],
    [null, null, 'card_declined'],
  ])('decline_code %s / code %s → %s', (declineCode, code, reason) => {
    expect(failReasonOf(declineCode, code)).toBe(reason);
  });
});

describe('idempotency keys from paygate ids', () => {
  it('payments by transaction and attempt, renewals by billing record and attempt, refunds by refund id', () => {
    expect(paymentKey('txn_01H', 1)).toBe('paygate:txn_01H:1');
    expect(paymentKey('txn_01H', 2)).not.toBe(paymentKey('txn_01H', 1));
    expect(renewalKey('rec_9', 0)).toBe('paygate:rec_9:0');
    expect(renewalKey('rec_9', 3)).toBe('paygate:rec_9:3');
    expect(refundKey('rfd_7')).toBe('paygate:rfd_7');
    expect(stepKey(paymentKey('txn_1', 1), 'confirm')).toBe('paygate:txn_1:1:confirm');
  });

  it('refuses ids that could collide or are empty, and bad attempts', () => {
    expect(() => paymentKey('', 1)).toThrow();
    expect(() => paymentKey('txn:1', 1)).toThrow();
    expect(() => renewalKey('rec_1', -1)).toThrow();
    expect(() => renewalKey('rec_1', 1.5)).toThrow();
  });
});

describe('PAYGATE_STRIPE_API_URL', () => {
  it('defaults to https://api.stripe.com', () => {
    expect(stripeApiUrlFrom({})).toBe(DEFAULT_STRIPE_API_URL);
    expect(stripeApiUrlFrom({ PAYGATE_STRIPE_API_URL: '  ' })).toBe(DEFAULT_STRIPE_API_URL);
    expect(parseStripeApiUrl(DEFAULT_STRIPE_API_URL)).toEqual({ host: 'api.stripe.com', port: 443, protocol: 'https' });
  });

  it('accepts plain http only on loopback, where a local stand-in runs', () => {
    expect(parseStripeApiUrl('http://127.0.0.1:12111')).toEqual({ host: '127.0.0.1', port: 12111, protocol: 'http' });
    expect(parseStripeApiUrl('http://[::1]:8080')).toEqual({ host: '::1', port: 8080, protocol: 'http' });
    expect(() => parseStripeApiUrl('http://stripe.example.com')).toThrow(/only on 127.0.0.1/);
  });

  it('refuses a path, a query, credentials or another scheme', () => {
    expect(() => parseStripeApiUrl('https://api.stripe.com/v1')).toThrow(/bare origin/);
    expect(() => parseStripeApiUrl('https://u:p@api.stripe.com')).toThrow(/bare origin/);
    expect(() => parseStripeApiUrl('ftp://api.stripe.com')).toThrow(/http/);
    expect(() => parseStripeApiUrl('not a url')).toThrow(/not a URL/);
  });
});

describe('key shapes', () => {
  it('secret and restricted keys pass; publishable keys, webhook secrets and junk are named', () => {
    expect(keyShapeError('sk_test_51Habcdefghijkl')).toBeNull();
    expect(keyShapeError('rk_live_51Habcdefghijkl')).toBeNull();
    expect(keyShapeError('pk_test_51Habcdefghijkl')).toMatch(/publishable/);
    expect(keyShapeError('whsec_abcdefghijkl')).toMatch(/webhook signing secret/);
    expect(keyShapeError('hunter2')).toMatch(/not a Stripe secret key/);
  });
});

describe('mapping intents and faults', () => {
  const pi = (over: Partial<Stripe.PaymentIntent>) =>
    ({
      id: 'pi_1',
      status: 'succeeded',
      next_action: null,
      last_payment_error: null,
      cancellation_reason: null,
      ...over,
    }) as Stripe.PaymentIntent;

  it('each intent status lands on one outcome', () => {
    expect(mapIntent(pi({ status: 'succeeded' }))).toEqual({ outcome: 'approved', ref: 'pi_1' });
    expect(mapIntent(pi({ status: 'processing' }))).toMatchObject({
      outcome: 'in_flight',
      cause: 'processing',
      mayHaveMoved: true,
    });
    expect(mapIntent(pi({ status: 'requires_capture' }))).toMatchObject({ outcome: 'in_flight' });
    expect(mapIntent(pi({ status: 'requires_confirmation' }))).toMatchObject({
      outcome: 'in_flight',
      cause: 'not_confirmed',
      mayHaveMoved: false,
    });
    expect(mapIntent(pi({ status: 'canceled', cancellation_reason: 'abandoned' }))).toMatchObject({
      outcome: 'declined',
      stripeCode: 'canceled:abandoned',
    });
    expect(
      mapIntent(
        pi({ status: 'requires_action', next_action: { type: 'use_stripe_sdk' } as Stripe.PaymentIntent.NextAction }),
      ),
    ).toMatchObject({ outcome: 'declined', reason: 'authentication_required' });
  });

  it('a 409 (same key still running) is in flight; an unknown error is rethrown', () => {
    const conflict = new Stripe.errors.StripeAPIError({ message: 'in progress', statusCode: 409 } as never);
    expect(mapFault(conflict, true)).toMatchObject({ outcome: 'in_flight', cause: 'conflict', mayHaveMoved: true });
    expect(() => mapFault(new TypeError('bug'), true)).toThrow('bug');
  });

  it('messages never carry something that looks like a card number', () => {
    expect(scrub('card 4242 4242 4242 4242 and 4000000000000002 declined; amount 12345')).toBe(
      'card [card number removed] and [card number removed] declined; amount 12345',
    );
  });
});

describe('PAYGATE_STRIPE_TIMEOUT_MS', () => {
  it('defaults to 20 s and takes whole milliseconds from 1000 to 120000', () => {
    expect(stripeTimeoutFrom({})).toBe(DEFAULT_STRIPE_TIMEOUT_MS);
    expect(DEFAULT_STRIPE_TIMEOUT_MS).toBe(20_000);
    expect(stripeTimeoutFrom({ PAYGATE_STRIPE_TIMEOUT_MS: ' 5000 ' })).toBe(5000);
    expect(stripeTimeoutFrom({ PAYGATE_STRIPE_TIMEOUT_MS: '120000' })).toBe(120_000);
  });

  it('refuses anything else with the setting named', () => {
    for (const bad of ['999', '120001', '5s', '2.5', '-1', 'soon']) {
      expect(() => stripeTimeoutFrom({ PAYGATE_STRIPE_TIMEOUT_MS: bad }), bad).toThrowError(
        /PAYGATE_STRIPE_TIMEOUT_MS: must be a whole number of milliseconds from 1000 to 120000/,
      );
    }
  });
});
