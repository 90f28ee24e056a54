import { describe, expect, it } from 'vitest';
import type { CouponInForce, CouponTerms } from '../../src/domain/discount.js';
import { couponText, discountLine } from '../../src/services/portal/coupon-text.js';

/** How the portal words the coupon in force (SPEC §18, §19): what it takes off, and for how many more payments. */
const held = (terms: Omit<CouponTerms, 'code'>, cyclesUsed = 0): CouponInForce => ({
  terms: { code: 'WELCOME', ...terms },
  takenAt: 0,
  cyclesUsed,
});

describe('the coupon as the portal words it', () => {
  it.each([
    [
      'a percentage, REPEATING, one cycle used',
      held({ off: { percentBasisPoints: 5000 }, duration: 'REPEATING', cycles: 3 }, 1),
      'WELCOME: 50% off, 2 more payments',
    ],
    [
      'its last cycle',
      held({ off: { percentBasisPoints: 5000 }, duration: 'REPEATING', cycles: 3 }, 2),
      'WELCOME: 50% off, 1 more payment',
    ],
    [
      'a percentage with decimals',
      held({ off: { percentBasisPoints: 1250 }, duration: 'FOREVER' }),
      'WELCOME: 12.5% off every payment',
    ],
    [
      'the smallest percentage',
      held({ off: { percentBasisPoints: 1 }, duration: 'ONCE' }),
      'WELCOME: 0.01% off, 1 more payment',
    ],
    [
      'an amount off, ONCE',
      held({ off: { amountOff: 1000 }, duration: 'ONCE' }),
      'WELCOME: 10.00 USD off, 1 more payment',
    ],
    [
      'an amount off with thousands',
      held({ off: { amountOff: 123_456 }, duration: 'FOREVER' }),
      'WELCOME: 1,234.56 USD off every payment',
    ],
  ])('%s', (_, coupon, text) => {
    expect(couponText(coupon)).toBe(text);
  });

  it('words a charge’s discount as the invoice’s negative line does', () => {
    expect(discountLine('WELCOME', 1500, 'USD')).toEqual({ label: 'Discount (WELCOME)', amount: '-15.00 USD' });
  });
});
