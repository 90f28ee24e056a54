import { createPlan, listPlans } from '../../services/plans.js';
import type { ApiRoute } from '../api.js';
import { schemas } from '../openapi-schemas.js';

export const planRoutes: ApiRoute[] = [
  {
    method: 'POST',
    url: '/subscription/plan/create',
    bucket: 'plan-create',
    limit: 300,
    by: 'merchantId',
    doc: {
      summary: 'Create a subscription plan',
      fields: {
        planName: schemas.string(200),
        description: schemas.string(500),
        price: schemas.amount,
        currency: { type: 'string', enum: ['USD'] },
        cycleType: { type: 'string', enum: ['DAILY', 'WEEKLY', 'MONTHLY', 'YEARLY'] },
        cycleLength: schemas.integer,
        trialDays: schemas.integer,
        maxSubscriptions: schemas.integer,
      },
      required: ['planName', 'price', 'currency', 'cycleType', 'cycleLength'],
      data: schemas.plan,
    },
    handle: (ctx, merchant, params) => createPlan(ctx, merchant.id, params),
  },
  {
    method: 'GET',
    url: '/subscription/plan/list',
    bucket: 'plan-list',
    limit: 300,
    by: 'merchantId',
    doc: {
      summary: 'List plans, newest first',
      fields: { status: { type: 'string', enum: ['ACTIVE', 'INACTIVE'] } },
      required: [],
      data: { type: 'array', items: schemas.plan },
    },
    handle: (ctx, merchant, params) => listPlans(ctx, merchant.id, params),
  },
];
