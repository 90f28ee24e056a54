import { describe, expect, it } from 'vitest';
import { type CouponTerms, discountOn, quoteCharge } from '../../src/domain/discount.js';
import { type ModelEvent, runModel } from '../helpers/coupon-model.js';

const HALF: CouponTerms['off'] = { percentBasisPoints: 5000 };
const DURATIONS: [string, CouponTerms][] = [
  ['ONCE', { code: 'ONCE50', off: HALF, duration: 'ONCE' }],
  ['REPEATING 2', { code: 'TWO50', off: HALF, duration: 'REPEATING', cycles: 2 }],
  ['FOREVER', { code: 'EVER50', off: HALF, duration: 'FOREVER' }],
];
const PRICE = 1000;
const NEW_PRICE = 3000;

/**
 * Subscribe with the coupon (trial or paid first charge), renew (declined first and paid by its
 * retry, or paid at once), change plan now (or not), then renew three more times. Each charge is
 * written `KIND:amount` (`!` when declined).
 */
function script(retry: boolean, change: boolean): ModelEvent[] {
  return [
    ...(retry ? [{ type: 'due', paid: false } as const] : []),
    { type: 'due', paid: true },
    ...(change ? [{ type: 'change', price: NEW_PRICE, paid: true } as const] : []),
    { type: 'due', paid: true },
    { type: 'due', paid: true },
    { type: 'due', paid: true },
  ];
}

const cases: [string, boolean, boolean, boolean, string][] = [
  // duration, trial, retry, change → the charges
  ['ONCE', false, false, false, 'INITIAL:500 RENEW:1000 RENEW:1000 RENEW:1000 RENEW:1000'],
  ['ONCE', false, false, true, 'INITIAL:500 RENEW:1000 CHANGE:3000 RENEW:3000 RENEW:3000 RENEW:3000'],
  ['ONCE', false, true, false, 'INITIAL:500 RENEW!1000 RETRY:1000 RENEW:1000 RENEW:1000 RENEW:1000'],
  ['ONCE', false, true, true, 'INITIAL:500 RENEW!1000 RETRY:1000 CHANGE:3000 RENEW:3000 RENEW:3000 RENEW:3000'],
  ['ONCE', true, false, false, 'INITIAL:0 RENEW:500 RENEW:1000 RENEW:1000 RENEW:1000'],
  ['ONCE', true, false, true, 'INITIAL:0 RENEW:500 CHANGE:3000 RENEW:3000 RENEW:3000 RENEW:3000'],
  ['ONCE', true, true, false, 'INITIAL:0 RENEW!500 RETRY:500 RENEW:1000 RENEW:1000 RENEW:1000'],
  ['ONCE', true, true, true, 'INITIAL:0 RENEW!500 RETRY:500 CHANGE:3000 RENEW:3000 RENEW:3000 RENEW:3000'],
  ['REPEATING 2', false, false, false, 'INITIAL:500 RENEW:500 RENEW:1000 RENEW:1000 RENEW:1000'],
  ['REPEATING 2', false, false, true, 'INITIAL:500 RENEW:500 CHANGE:3000 RENEW:3000 RENEW:3000 RENEW:3000'],
  ['REPEATING 2', false, true, false, 'INITIAL:500 RENEW!500 RETRY:500 RENEW:1000 RENEW:1000 RENEW:1000'],
  ['REPEATING 2', false, true, true, 'INITIAL:500 RENEW!500 RETRY:500 CHANGE:3000 RENEW:3000 RENEW:3000 RENEW:3000'],
  ['REPEATING 2', true, false, false, 'INITIAL:0 RENEW:500 RENEW:500 RENEW:1000 RENEW:1000'],
  ['REPEATING 2', true, false, true, 'INITIAL:0 RENEW:500 CHANGE:1500 RENEW:3000 RENEW:3000 RENEW:3000'],
  ['REPEATING 2', true, true, false, 'INITIAL:0 RENEW!500 RETRY:500 RENEW:500 RENEW:1000 RENEW:1000'],
  ['REPEATING 2', true, true, true, 'INITIAL:0 RENEW!500 RETRY:500 CHANGE:1500 RENEW:3000 RENEW:3000 RENEW:3000'],
  ['FOREVER', false, false, false, 'INITIAL:500 RENEW:500 RENEW:500 RENEW:500 RENEW:500'],
  ['FOREVER', false, false, true, 'INITIAL:500 RENEW:500 CHANGE:1500 RENEW:1500 RENEW:1500 RENEW:1500'],
  ['FOREVER', false, true, false, 'INITIAL:500 RENEW!500 RETRY:500 RENEW:500 RENEW:500 RENEW:500'],
  ['FOREVER', false, true, true, 'INITIAL:500 RENEW!500 RETRY:500 CHANGE:1500 RENEW:1500 RENEW:1500 RENEW:1500'],
  ['FOREVER', true, false, false, 'INITIAL:0 RENEW:500 RENEW:500 RENEW:500 RENEW:500'],
  ['FOREVER', true, false, true, 'INITIAL:0 RENEW:500 CHANGE:1500 RENEW:1500 RENEW:1500 RENEW:1500'],
  ['FOREVER', true, true, false, 'INITIAL:0 RENEW!500 RETRY:500 RENEW:500 RENEW:500 RENEW:500'],
  ['FOREVER', true, true, true, 'INITIAL:0 RENEW!500 RETRY:500 CHANGE:1500 RENEW:1500 RENEW:1500 RENEW:1500'],
];

describe('which charges a 50% coupon covers (duration × trial × retry × plan change)', () => {
  it.each(cases)('%s, trial %s, retry %s, change %s', (duration, trial, retry, change, expected) => {
    const terms = DURATIONS.find(([name]) => name === duration)?.[1];
    if (!terms) throw new Error(duration);
    const { charges } = runModel({ price: PRICE, trial, coupon: terms }, script(retry, change));
    expect(charges.map((c) => `${c.kind}${c.paid ? ':' : '!'}${c.amount}`).join(' ')).toBe(expected);
  });

  it('records the discount and the code on every discounted charge, and neither on the others', () => {
    const { charges } = runModel({ price: PRICE, trial: false, coupon: DURATIONS[0]?.[1] }, script(true, false));
    expect(charges.map((c) => [c.couponCode, c.discountAmount])).toEqual([
      ['ONCE50', 500],
      [null, 0],
      [null, 0],
      [null, 0],
      [null, 0],
      [null, 0],
    ]);
  });
});

describe('a RETRY carries the discount of its RENEW', () => {
  const terms: CouponTerms = { code: 'TWO50', off: HALF, duration: 'REPEATING', cycles: 2 };
  const other: CouponTerms = { code: 'TENOFF', off: { amountOff: 100 }, duration: 'FOREVER' };

  it('and spends no second cycle: a renewal paid on its third retry uses one', () => {
    const failing: ModelEvent[] = [1, 2, 3].map(() => ({ type: 'due', paid: false }) as const);
    const { charges } = runModel({ price: PRICE, trial: true, coupon: terms }, [
      ...failing,
      { type: 'due', paid: true },
      { type: 'due', paid: true },
      { type: 'due', paid: true },
    ]);
    expect(charges.map((c) => `${c.kind}${c.paid ? ':' : '!'}${c.amount}`).join(' ')).toBe(
      'INITIAL:0 RENEW!500 RETRY!500 RETRY!500 RETRY:500 RENEW:500 RENEW:1000',
    );
  });

  it('even when a coupon is taken between the RENEW and its RETRY, which covers the charge after', () => {
    const { charges } = runModel({ price: PRICE, trial: true, coupon: terms }, [
      { type: 'due', paid: false },
      { type: 'coupon', terms: other },
      { type: 'due', paid: true },
      { type: 'due', paid: true },
    ]);
    expect(charges.map((c) => `${c.kind}:${c.amount}:${c.couponCode}`).join(' ')).toBe(
      'INITIAL:0:null RENEW:500:TWO50 RETRY:500:TWO50 RENEW:900:TENOFF',
    );
  });

  it('and spends nothing of the same code taken again after the RENEW: the new taking covers all its cycles', () => {
    const { charges } = runModel({ price: PRICE, trial: true, coupon: terms }, [
      { type: 'due', paid: false },
      { type: 'coupon', terms },
      { type: 'due', paid: true },
      { type: 'due', paid: true },
      { type: 'due', paid: true },
      { type: 'due', paid: true },
    ]);
    expect(charges.map((c) => `${c.kind}${c.paid ? ':' : '!'}${c.amount}`).join(' ')).toBe(
      'INITIAL:0 RENEW!500 RETRY:500 RENEW:500 RENEW:500 RENEW:1000',
    );
  });

  it('and a renewal whose retries a pause cancelled is discounted again on resume, using one cycle in all', () => {
    const { charges } = runModel({ price: PRICE, trial: true, coupon: { ...terms, cycles: 1 } }, [
      { type: 'due', paid: false },
      { type: 'pause' },
      { type: 'resume' },
      { type: 'due', paid: true },
      { type: 'due', paid: true },
    ]);
    expect(charges.map((c) => `${c.kind}${c.paid ? ':' : '!'}${c.amount}`).join(' ')).toBe(
      'INITIAL:0 RENEW!500 RENEW:500 RENEW:1000',
    );
  });
});

describe('the charged amount', () => {
  it.each([
    // price, percent in basis points, discount: the charge is rounded down, the discount up
    [1000, 5000, 500],
    [999, 5000, 500],
    [1000, 3333, 334],
    [1, 1, 1],
    [1000, 10_000, 1000],
    [999_999_999_999, 1, 100_000_000],
  ])('%i at %i bp off is discounted %i, in the customer’s favour', (price, bp, discount) => {
    expect(discountOn(price, { percentBasisPoints: bp })).toBe(discount);
  });

  it('is never below zero: an amount off larger than the price discounts the price', () => {
    expect(quoteCharge({ kind: 'RENEW', price: 500 }, coupon({ amountOff: 2000 }))).toEqual({
      price: 500,
      discountAmount: 500,
      amount: 0,
      couponCode: 'C',
    });
  });

  it('is the price when the subscription has no coupon or its coupon is spent', () => {
    expect(quoteCharge({ kind: 'RENEW', price: 700 }, null).amount).toBe(700);
    const spent = { ...coupon({ amountOff: 100 }), cyclesUsed: 1 };
    expect(
      quoteCharge({ kind: 'CHANGE', price: 700 }, { ...spent, terms: { ...spent.terms, duration: 'ONCE' } }).amount,
    ).toBe(700);
  });
});

function coupon(off: CouponTerms['off']) {
  return { terms: { code: 'C', off, duration: 'FOREVER' as const }, takenAt: 0, cyclesUsed: 0 };
}
