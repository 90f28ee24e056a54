import {
  cancelSubscription,
  listBillingRecords,
  listUserSubscriptions,
  pauseSubscription,
  resumeSubscription,
  subscriptionDetail,
} from '../../services/subscriptions/index.js';
import type { ApiRoute } from '../api.js';
import { schemas } from '../openapi-schemas.js';

const byMerchant = { limit: 300, by: 'merchantId' } as const;
const subscriptionStatus = { type: 'string', enum: ['INCOMPLETE', 'ACTIVE', 'PAUSED', 'CANCELLED', 'FAILED', 'EXPIRED'] };

/** Pause / resume / cancel answer data:true, or data:false with 1008 / 1007 (SPEC §5). */
const transitions: ApiRoute[] = (
  [
    ['cancel', 'Cancel a subscription', cancelSubscription],
    ['pause', 'Pause a subscription', pauseSubscription],
    ['resume', 'Resume a paused subscription', resumeSubscription],
  ] as const
).map(([verb, summary, fn]) => ({
  method: 'POST',
  url: `/subscription/${verb}`,
  bucket: `subscription-${verb}`,
  ...byMerchant,
  failData: false,
  doc: { summary, fields: { subscriptionId: schemas.string(200) }, required: ['subscriptionId'], data: schemas.boolean },
  handle: (ctx, merchant, params) => fn(ctx, merchant.id, params),
}));

export const subscriptionRoutes: ApiRoute[] = [
  {
    method: 'GET',
    url: '/subscription/user/list',
    bucket: 'subscription-user-list',
    ...byMerchant,
    doc: {
      summary: "A user's subscriptions, newest first",
      fields: { userId: schemas.string(200), status: subscriptionStatus },
      required: ['userId'],
      data: { type: 'array', items: schemas.subscription },
    },
    handle: (ctx, merchant, params) => listUserSubscriptions(ctx, merchant.id, params),
  },
  {
    method: 'GET',
    url: '/subscription/detail',
    bucket: 'subscription-detail',
    ...byMerchant,
    doc: { summary: 'One subscription', fields: { subscriptionId: schemas.string(200) }, required: ['subscriptionId'], data: schemas.subscription },
    handle: (ctx, merchant, params) => subscriptionDetail(ctx, merchant.id, params),
  },
  {
    method: 'GET',
    url: '/subscription/billing/list',
    bucket: 'subscription-billing-list',
    ...byMerchant,
    doc: {
      summary: "A subscription's billing records, newest first, paginated",
      fields: {
        subscriptionCode: schemas.string(200),
        status: { type: 'string', enum: ['PENDING', 'SUCCESS', 'FAILED', 'CANCELLED'] },
        pageNum: schemas.integer,
        pageSize: schemas.integer,
      },
      required: ['subscriptionCode'],
      data: {
        type: 'object',
        properties: { total: { type: 'integer' }, pageNum: { type: 'integer' }, pageSize: { type: 'integer' }, records: { type: 'array', items: schemas.billingRecord } },
      },
    },
    handle: (ctx, merchant, params) => listBillingRecords(ctx, merchant.id, params),
  },
  ...transitions,
];
