import { RESULT_CODES } from '../../domain/errors.js';
import {
  BILLING_LIST_REQUEST,
  cancelSubscription,
  listBillingRecords,
  listUserSubscriptions,
  pauseSubscription,
  resumeSubscription,
  SUBSCRIPTION_ID_REQUEST,
  subscriptionDetail,
  SUBSCRIPTION_UPDATE_REQUEST,
  updateSubscription,
  USER_LIST_REQUEST,
} from '../../services/subscriptions/index.js';
import { CARD_UPDATE_REQUEST, updateCard } from '../../services/card-update/index.js';
import { CHANGE_PLAN_REQUEST, changePlan } from '../../services/plan-change/index.js';
import type { ApiRoute } from '../api.js';
import { data } from '../openapi-schemas.js';

const byMerchant = { limit: 300, by: 'merchantId' } as const;
const { NOT_FOUND, NOT_ALLOWED, PLAN_UNAVAILABLE, CARD_REJECTED } = RESULT_CODES;

/** Pause / resume / cancel answer data:true, or data:false with 1008 / 1007 (SPEC §5). */
const transitions: ApiRoute[] = (
  [
    [
      'cancel',
      'cancelSubscription',
      'Cancel a subscription',
      'From ACTIVE, PAUSED or INCOMPLETE. The pending charge is cancelled; endTime is the end of the period already paid (or of the trial) if it is still running, else now.',
      cancelSubscription,
    ],
    [
      'pause',
      'pauseSubscription',
      'Pause a subscription',
      'From ACTIVE. The pending charge is cancelled; nothing is charged while PAUSED.',
      pauseSubscription,
    ],
    [
      'resume',
      'resumeSubscription',
      'Resume a paused subscription',
      'From PAUSED. The next charge is at the old nextBillingTime, or now if that has passed (the billing anchor then moves to now).',
      resumeSubscription,
    ],
  ] as const
).map(([verb, operationId, summary, description, fn]) => ({
  method: 'POST',
  url: `/subscription/${verb}`,
  bucket: `subscription-${verb}`,
  ...byMerchant,
  failData: false,
  doc: {
    operationId,
    tag: 'Subscriptions',
    summary,
    description: `${description} Any other state, including the one asked for, is 1008 with data false.`,
    request: { schema: SUBSCRIPTION_ID_REQUEST, name: 'SubscriptionIdRequest' },
    data: data.done,
    errors: [NOT_FOUND, NOT_ALLOWED],
  },
  handle: (ctx, merchant, params) => fn(ctx, merchant.id, params),
}));

export const subscriptionRoutes: ApiRoute[] = [
  {
    method: 'GET',
    url: '/subscription/user/list',
    bucket: 'subscription-user-list',
    ...byMerchant,
    doc: {
      operationId: 'listUserSubscriptions',
      tag: 'Subscriptions',
      summary: "A user's subscriptions, newest first",
      request: { schema: USER_LIST_REQUEST },
      data: data.subscriptions,
      errors: [],
    },
    handle: (ctx, merchant, params) => listUserSubscriptions(ctx, merchant.id, params),
  },
  {
    method: 'GET',
    url: '/subscription/detail',
    bucket: 'subscription-detail',
    ...byMerchant,
    doc: {
      operationId: 'getSubscription',
      tag: 'Subscriptions',
      summary: 'One subscription',
      request: { schema: SUBSCRIPTION_ID_REQUEST, name: 'SubscriptionIdRequest' },
      data: data.subscription,
      errors: [NOT_FOUND],
    },
    handle: (ctx, merchant, params) => subscriptionDetail(ctx, merchant.id, params),
  },
  {
    method: 'GET',
    url: '/subscription/billing/list',
    bucket: 'subscription-billing-list',
    ...byMerchant,
    doc: {
      operationId: 'listBillingRecords',
      tag: 'Subscriptions',
      summary: "A subscription's billing records, newest first, a page at a time",
      request: { schema: BILLING_LIST_REQUEST },
      data: data.billingPage,
      errors: [NOT_FOUND],
    },
    handle: (ctx, merchant, params) => listBillingRecords(ctx, merchant.id, params),
  },
  ...transitions,
  {
    method: 'POST',
    url: '/subscription/update',
    bucket: 'subscription-update',
    ...byMerchant,
    doc: {
      operationId: 'updateSubscription',
      tag: 'Subscriptions',
      summary: "Change a subscription's email address",
      description:
        'Sets the address customer emails about this subscription go to (renewal failed, card expiring, subscription ended, receipts), in any state. It starts as the first charge’s billingAddress.email. Emails already written keep their address; nothing is sent for the change. An address that is not one is 1001.',
      request: { schema: SUBSCRIPTION_UPDATE_REQUEST, name: 'SubscriptionUpdateRequest' },
      data: data.subscription,
      errors: [NOT_FOUND],
    },
    handle: (ctx, merchant, params) => updateSubscription(ctx, merchant.id, params),
  },
  {
    method: 'POST',
    url: '/subscription/change',
    bucket: 'subscription-change',
    ...byMerchant,
    doc: {
      operationId: 'changeSubscriptionPlan',
      tag: 'Subscriptions',
      summary: 'Move a subscription to another plan',
      description:
        'An ACTIVE subscription (else 1008) moves to another ACTIVE plan of the same merchant and currency (1009 when the plan is inactive or full). PERIOD_END: the next renewal charges the new plan and its calendar starts there. NOW: the unused part of the paid period is credited by time (rounded down to the minor unit), the new price less that credit and any carried credit is charged at once as a CHANGE record, a credit larger than the price is carried to the next charges, and the new calendar starts now; a declined charge leaves the old plan (result DECLINED). A PLAN_CHANGED callback reports a change that took effect.',
      request: { schema: CHANGE_PLAN_REQUEST, name: 'ChangePlanRequest' },
      data: data.planChange,
      errors: [NOT_FOUND, NOT_ALLOWED, PLAN_UNAVAILABLE],
    },
    handle: (ctx, merchant, params) => changePlan(ctx, merchant.id, params),
  },
  {
    method: 'POST',
    url: '/subscription/card/update',
    bucket: 'subscription-card-update',
    ...byMerchant,
    doc: {
      operationId: 'updateSubscriptionCard',
      tag: 'Subscriptions',
      summary: "Replace a subscription's card",
      description:
        "ACTIVE or PAUSED subscriptions (else 1008). The new card is checked with a zero-amount charge through the merchant's channel; a card that asks for 3-D Secure answers 100040 with the page url, and replaces the old card once the subscriber completes it. A renewal waiting for a retry becomes due at once (the next renewal run charges it with the new card; the billing anchor is kept). A card failing the local checks is 1011; a declined check (300000) leaves the old card.",
      request: { schema: CARD_UPDATE_REQUEST, name: 'CardUpdateRequest' },
      data: data.cardUpdate,
      errors: [NOT_FOUND, NOT_ALLOWED, CARD_REJECTED],
    },
    handle: (ctx, merchant, params) => updateCard(ctx, merchant.id, params),
  },
];
