import type { CouponInForce } from '../../domain/discount.js';
import { formatMoney } from '../../domain/money.js';

/**
 * The coupon in force as the subscriber reads it (SPEC §18, §19): `WELCOME: 50% off, 2 more
 * payments`. "More payments" counts the charges it will still discount — the next payment
 * included, as its amount already shows the discount — because a cycle is spent only when a
 * discounted charge is paid. Pure; the caller shows it only while the coupon lasts.
 */
export function couponText(coupon: CouponInForce): string {
  const { terms, cyclesUsed } = coupon;
  const off =
    'amountOff' in terms.off
      ? `${formatMoney(terms.off.amountOff, 'USD')} off`
      : `${terms.off.percentBasisPoints / 100}% off`;
  if (terms.duration === 'FOREVER') return `${terms.code}: ${off} every payment`;
  const left = Math.max(0, (terms.duration === 'ONCE' ? 1 : (terms.cycles ?? 0)) - cyclesUsed);
  return `${terms.code}: ${off}, ${left} more payment${left === 1 ? '' : 's'}`;
}

/** A charge's discount, as an invoice's negative line shows it: `Discount (WELCOME)` and `-15.00 USD`. */
export interface DiscountLine {
  label: string;
  amount: string;
}

export const discountLine = (couponCode: string, discountAmount: number, currency: string): DiscountLine => ({
  label: `Discount (${couponCode})`,
  amount: formatMoney(-discountAmount, currency),
});
