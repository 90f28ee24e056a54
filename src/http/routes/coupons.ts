import { RESULT_CODES } from '../../domain/errors.js';
import {
  COUPON_CODE_REQUEST,
  COUPON_CREATE_REQUEST,
  COUPON_LIST_REQUEST,
  createCoupon,
  deactivateCouponRequest,
  listCoupons,
} from '../../services/coupons.js';
import { SUBSCRIPTION_COUPON_REQUEST, takeCoupon } from '../../services/take-coupon.js';
import type { ApiRoute } from '../api.js';
import { data } from '../openapi-schemas.js';

const byMerchant = { limit: 300, by: 'merchantId' } as const;
const { NOT_FOUND, NOT_ALLOWED, DUPLICATE_RELATION, COUPON_NOT_APPLICABLE } = RESULT_CODES;

/** SPEC §19: a merchant's coupons, and a subscription taking one. */
export const couponRoutes: ApiRoute[] = [
  {
    method: 'POST',
    url: '/coupon/create',
    bucket: 'coupon-create',
    ...byMerchant,
    doc: {
      operationId: 'createCoupon',
      tag: 'Coupons',
      summary: 'Create a discount coupon',
      description:
        'Exactly one of percentOff ("0.01"–"100", at most two decimals) and amountOff (USD). REPEATING needs cycles (1–120); ONCE and FOREVER take none. redeemBy (yyyy-MM-dd HH:mm:ss in the service zone) and maxRedemptions limit who may take it; planIds restricts it to plans of this merchant (1007 for another one). A code the merchant already has is 1005. Coupon fields never change.',
      request: { schema: COUPON_CREATE_REQUEST, name: 'CouponCreateRequest' },
      data: data.coupon,
      errors: [NOT_FOUND, DUPLICATE_RELATION],
    },
    handle: (ctx, merchant, params) => createCoupon(ctx, merchant.id, params),
  },
  {
    method: 'GET',
    url: '/coupon/list',
    bucket: 'coupon-list',
    ...byMerchant,
    doc: {
      operationId: 'listCoupons',
      tag: 'Coupons',
      summary: "The merchant's coupons, newest first",
      request: { schema: COUPON_LIST_REQUEST, name: 'CouponListRequest' },
      data: data.coupons,
      errors: [],
    },
    handle: (ctx, merchant) => listCoupons(ctx, merchant.id),
  },
  {
    method: 'POST',
    url: '/coupon/deactivate',
    bucket: 'coupon-deactivate',
    ...byMerchant,
    doc: {
      operationId: 'deactivateCoupon',
      tag: 'Coupons',
      summary: 'Deactivate a coupon for good',
      description:
        'No subscription takes an INACTIVE coupon again; subscriptions that hold it keep their discount for the charges it still covers. An unknown code is 1007, one already INACTIVE 1008.',
      request: { schema: COUPON_CODE_REQUEST, name: 'CouponCodeRequest' },
      data: data.coupon,
      errors: [NOT_FOUND, NOT_ALLOWED],
    },
    handle: (ctx, merchant, params) => deactivateCouponRequest(ctx, merchant.id, params),
  },
  {
    method: 'POST',
    url: '/subscription/coupon',
    bucket: 'subscription-coupon',
    ...byMerchant,
    doc: {
      operationId: 'applySubscriptionCoupon',
      tag: 'Subscriptions',
      summary: 'Give a subscription a coupon',
      description:
        'An ACTIVE or PAUSED subscription (else 1008) takes the coupon from its next charge on, replacing any it held. A renewal already waiting is re-priced; a retry keeps the discount of the renewal it retries. An unknown, INACTIVE, expired, used-up or not-for-this-plan code is 1012 and changes nothing.',
      request: { schema: SUBSCRIPTION_COUPON_REQUEST, name: 'SubscriptionCouponRequest' },
      data: data.subscription,
      errors: [NOT_FOUND, NOT_ALLOWED, COUPON_NOT_APPLICABLE],
    },
    handle: (ctx, merchant, params) => takeCoupon(ctx, merchant.id, params),
  },
];
