import { createPlan, listPlans, PLAN_CREATE_REQUEST, PLAN_LIST_REQUEST } from '../../services/plans.js';
import type { ApiRoute } from '../api.js';
import { data } from '../openapi-schemas.js';

export const planRoutes: ApiRoute[] = [
  {
    method: 'POST',
    url: '/subscription/plan/create',
    bucket: 'plan-create',
    limit: 300,
    by: 'merchantId',
    doc: {
      operationId: 'createPlan',
      tag: 'Plans',
      summary: 'Create a subscription plan',
      description:
        'A plan charges price every cycleLength × cycleType, at most one year in all (DAILY ≤ 365, WEEKLY ≤ 52, MONTHLY ≤ 12, YEARLY = 1). Plans are USD only. price may be 0 only with trialDays > 0. maxSubscriptions 0 (the default) means no limit. A plan cannot be changed once created.',
      request: { schema: PLAN_CREATE_REQUEST },
      data: data.plan,
      errors: [],
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
      operationId: 'listPlans',
      tag: 'Plans',
      summary: 'List plans, newest first',
      request: { schema: PLAN_LIST_REQUEST },
      data: data.plans,
      errors: [],
    },
    handle: (ctx, merchant, params) => listPlans(ctx, merchant.id, params),
  },
];
