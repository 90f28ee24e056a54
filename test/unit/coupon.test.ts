import { describe, expect, it } from 'vitest';
import {
  type CouponDraft,
  type CouponStanding,
  couponNotApplicable,
  couponRefusal,
  parseCouponDraft,
} from '../../src/domain/coupon.js';
import { PaygateError } from '../../src/domain/errors.js';

const draft = (over: Partial<CouponDraft> = {}): CouponDraft => ({
  code: 'LAUNCH',
  percentOff: '50',
  duration: 'ONCE',
  ...over,
});

function refusal(over: Partial<CouponDraft>): [string, string] {
  try {
    parseCouponDraft(draft(over));
  } catch (e) {
    if (e instanceof PaygateError) return [e.code, e.field ?? ''];
    throw e;
  }
  return ['accepted', ''];
}

describe('a coupon’s terms', () => {
  it('keep a percentage as basis points and an amount off as USD cents', () => {
    expect(parseCouponDraft(draft({ percentOff: '12.5' })).off).toEqual({ percentBasisPoints: 1250 });
    expect(parseCouponDraft(draft({ percentOff: '0.01' })).off).toEqual({ percentBasisPoints: 1 });
    expect(parseCouponDraft(draft({ percentOff: '100' })).off).toEqual({ percentBasisPoints: 10_000 });
    expect(parseCouponDraft(draft({ percentOff: undefined, amountOff: '5.00' })).off).toEqual({ amountOff: 500 });
  });

  it('take cycles for REPEATING only, redeem-by, max redemptions and plans as given', () => {
    expect(
      parseCouponDraft(
        draft({
          duration: 'REPEATING',
          cycles: 3,
          redeemBy: 1_800_000_000_000,
          maxRedemptions: '100',
          planIds: ['pln_a', 'pln_a'],
        }),
      ),
    ).toEqual({
      code: 'LAUNCH',
      off: { percentBasisPoints: 5000 },
      duration: 'REPEATING',
      cycles: 3,
      redeemBy: 1_800_000_000_000,
      maxRedemptions: 100,
      planIds: ['pln_a'],
    });
  });

  it.each<[string, Partial<CouponDraft>, string]>([
    ['an empty code', { code: '' }, 'code'],
    ['a code of 51 characters', { code: 'A'.repeat(51) }, 'code'],
    ['a code with a space', { code: 'HALF OFF' }, 'code'],
    ['both percentOff and amountOff', { amountOff: '1.00' }, 'percentOff'],
    ['neither percentOff nor amountOff', { percentOff: undefined }, 'percentOff'],
    ['percentOff 0', { percentOff: '0' }, 'percentOff'],
    ['percentOff 0.001', { percentOff: '0.001' }, 'percentOff'],
    ['percentOff 100.01', { percentOff: '100.01' }, 'percentOff'],
    ['percentOff as a number', { percentOff: 50 }, 'percentOff'],
    ['amountOff 0', { percentOff: undefined, amountOff: '0' }, 'amountOff'],
    ['amountOff with 3 decimals', { percentOff: undefined, amountOff: '1.005' }, 'amountOff'],
    ['an unknown duration', { duration: 'MONTHLY' }, 'duration'],
    ['REPEATING without cycles', { duration: 'REPEATING' }, 'cycles'],
    ['REPEATING with 0 cycles', { duration: 'REPEATING', cycles: 0 }, 'cycles'],
    ['REPEATING with 121 cycles', { duration: 'REPEATING', cycles: 121 }, 'cycles'],
    ['cycles on a FOREVER coupon', { duration: 'FOREVER', cycles: 3 }, 'cycles'],
    ['maxRedemptions 0', { maxRedemptions: 0 }, 'maxRedemptions'],
  ])('refuse %s with 1001 naming the field', (_, over, field) => {
    expect(refusal(over)).toEqual(['1001', field]);
  });

  it('accept the bounds: a 50-character code and 120 cycles', () => {
    expect(refusal({ code: `${'a'.repeat(48)}_-`, duration: 'REPEATING', cycles: 120 })).toEqual(['accepted', '']);
  });
});

describe('taking a coupon', () => {
  const NOW = 1_800_000_000_000;
  const open: CouponStanding = { status: 'ACTIVE', redeemBy: null, maxRedemptions: null, redemptions: 0, planIds: [] };

  it.each<[string, Partial<CouponStanding>, string | null]>([
    ['an ACTIVE coupon for every plan', {}, null],
    ['an INACTIVE coupon', { status: 'INACTIVE' }, 'INACTIVE'],
    ['a coupon past its redeem-by time', { redeemBy: NOW - 1 }, 'EXPIRED'],
    ['a coupon at its redeem-by time', { redeemBy: NOW }, null],
    ['a coupon with its redemptions used up', { maxRedemptions: 100, redemptions: 100 }, 'USED_UP'],
    ['a coupon with one redemption left', { maxRedemptions: 100, redemptions: 99 }, null],
    ['a coupon for other plans', { planIds: ['pln_b'] }, 'NOT_FOR_PLAN'],
    ['a coupon for this plan among others', { planIds: ['pln_b', 'pln_a'] }, null],
  ])('%s → %s', (_, over, expected) => {
    expect(couponRefusal({ ...open, ...over }, 'pln_a', NOW)).toBe(expected);
  });

  it('is refused with 1012 on couponCode, naming the code and the reason in one line', () => {
    const e = couponNotApplicable('LAUNCH', 'USED_UP');
    expect([e.code, e.field, e.message]).toEqual(['1012', 'couponCode', 'couponCode: LAUNCH has no redemptions left']);
  });

  it('never echoes a code that is not one', () => {
    expect(couponNotApplicable('<script>\n', 'UNKNOWN').message).toBe('couponCode: is not a coupon of this merchant');
  });
});
