import type { CouponDuration, CouponOff } from './discount.js';
import { invalidParam, PaygateError, RESULT_CODES } from './errors.js';
import { parseAmount } from './money.js';

/**
 * A coupon's terms as a merchant writes them (SPEC §19), checked once into integers, and the
 * rules that decide whether a subscription may take it (1012). Pure: `now` is an argument.
 */

export const COUPON_CODE_RE = /^[A-Za-z0-9_-]{1,50}$/;
const PERCENT_RE = /^(100|[1-9]?\d)(\.\d{1,2})?$/;
const DURATIONS: readonly CouponDuration[] = ['ONCE', 'REPEATING', 'FOREVER'];
export const MAX_COUPON_CYCLES = 120;

export interface CouponDraft {
  code: unknown;
  percentOff?: unknown;
  amountOff?: unknown;
  duration: unknown;
  cycles?: unknown;
  /** Already parsed to epoch ms by the shell (time strings are the shell's to read). */
  redeemBy?: number | undefined;
  maxRedemptions?: unknown;
  planIds?: readonly string[] | undefined;
}

export interface CouponDefinition {
  code: string;
  off: CouponOff;
  duration: CouponDuration;
  cycles: number | null;
  redeemBy: number | null;
  maxRedemptions: number | null;
  /** Empty: every plan of the merchant. */
  planIds: string[];
}

/** Checks a draft into a definition; the first problem is a 1001 naming the field. Plans are USD (§19). */
export function parseCouponDraft(draft: CouponDraft): CouponDefinition {
  const code = draft.code;
  if (typeof code !== 'string' || !COUPON_CODE_RE.test(code))
    throw invalidParam('code', 'must be 1–50 characters of A-Z, a-z, 0-9, _ and -');
  const off = parseOff(draft.percentOff, draft.amountOff);
  const duration = draft.duration;
  if (typeof duration !== 'string' || !DURATIONS.includes(duration as CouponDuration))
    throw invalidParam('duration', 'must be ONCE, REPEATING or FOREVER');
  const cycles = parseCycles(duration as CouponDuration, draft.cycles);
  const maxRedemptions =
    draft.maxRedemptions === undefined ? null : positiveInt('maxRedemptions', draft.maxRedemptions);
  const planIds = [...new Set(draft.planIds ?? [])];
  return {
    code,
    off,
    duration: duration as CouponDuration,
    cycles,
    redeemBy: draft.redeemBy ?? null,
    maxRedemptions,
    planIds,
  };
}

function parseOff(percentOff: unknown, amountOff: unknown): CouponOff {
  if ((percentOff === undefined) === (amountOff === undefined))
    throw invalidParam('percentOff', 'give exactly one of percentOff and amountOff');
  if (amountOff !== undefined)
    return { amountOff: parseAmount(amountOff, 'USD', { field: 'amountOff', positive: true }) };
  if (typeof percentOff !== 'string' || !PERCENT_RE.test(percentOff))
    throw invalidParam(
      'percentOff',
      'must be a decimal string from 0.01 to 100 with at most two decimals, such as "12.5"',
    );
  const [whole = '0', frac = ''] = percentOff.split('.');
  const bp = Number(whole) * 100 + Number(frac.padEnd(2, '0'));
  if (bp < 1 || bp > 10_000) throw invalidParam('percentOff', 'must be from 0.01 to 100');
  return { percentBasisPoints: bp };
}

function parseCycles(duration: CouponDuration, cycles: unknown): number | null {
  if (duration !== 'REPEATING') {
    if (cycles !== undefined) throw invalidParam('cycles', 'only a REPEATING coupon has cycles');
    return null;
  }
  if (cycles === undefined) throw invalidParam('cycles', 'is required for a REPEATING coupon');
  const n = typeof cycles === 'string' && /^\d+$/.test(cycles) ? Number(cycles) : cycles;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > MAX_COUPON_CYCLES)
    throw invalidParam('cycles', `must be a whole number between 1 and ${MAX_COUPON_CYCLES}`);
  return n;
}

function positiveInt(field: string, value: unknown): number {
  const n = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 1)
    throw invalidParam(field, 'must be a whole number of at least 1');
  return n;
}

/** What the subscriber's side knows of a coupon when it is taken. */
export interface CouponStanding {
  status: 'ACTIVE' | 'INACTIVE';
  redeemBy: number | null;
  maxRedemptions: number | null;
  redemptions: number;
  planIds: readonly string[];
}

export type CouponRefusal = 'INACTIVE' | 'EXPIRED' | 'USED_UP' | 'NOT_FOR_PLAN';

/** Why `coupon` cannot be taken now for `planId`, or null when it can. */
export function couponRefusal(coupon: CouponStanding, planId: string, now: number): CouponRefusal | null {
  if (coupon.status !== 'ACTIVE') return 'INACTIVE';
  if (coupon.redeemBy !== null && now > coupon.redeemBy) return 'EXPIRED';
  if (coupon.maxRedemptions !== null && coupon.redemptions >= coupon.maxRedemptions) return 'USED_UP';
  if (coupon.planIds.length > 0 && !coupon.planIds.includes(planId)) return 'NOT_FOR_PLAN';
  return null;
}

const REFUSAL_TEXT: Record<CouponRefusal | 'UNKNOWN', string> = {
  UNKNOWN: 'is not a coupon of this merchant',
  INACTIVE: 'is inactive',
  EXPIRED: 'is past its redeem-by time',
  USED_UP: 'has no redemptions left',
  NOT_FOR_PLAN: 'is not for this plan',
};

/** The 1012 for a refused code: one line naming the code and the reason. */
export function couponNotApplicable(code: string, reason: CouponRefusal | 'UNKNOWN'): PaygateError {
  // Only a well-formed code is echoed: the message must not carry whatever a caller sent.
  const shown = COUPON_CODE_RE.test(code) ? `${code} ` : '';
  return new PaygateError(
    RESULT_CODES.COUPON_NOT_APPLICABLE,
    `couponCode: ${shown}${REFUSAL_TEXT[reason]}`,
    'couponCode',
  );
}
