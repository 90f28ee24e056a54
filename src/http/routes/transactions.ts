import { invalidParam } from '../../domain/errors.js';
import { createTransaction, queryTransaction } from '../../services/transactions/index.js';
import type { ApiRoute, RouteDoc } from '../api.js';
import { schemas, transactionFields } from '../openapi-schemas.js';

const createDoc = (summary: string, required: string[]): RouteDoc => ({
  summary,
  fields: transactionFields,
  required,
  data: schemas.transaction,
});

/** The transaction path and its /v1 alias share one budget (SPEC §5): same bucket name. */
const transactionBudget = { bucket: 'transaction', limit: 60, by: 'apiKey' } as const;

export const transactionRoutes: ApiRoute[] = [
  ...['/payment/:apiKey/transaction', '/v1/:apiKey/transaction'].map(
    (url): ApiRoute => ({
      method: 'POST',
      url,
      ...transactionBudget,
      doc: createDoc('Create a PAY, CHECKOUT or SUBSCRIPTION transaction', ['requestId', 'relationId', 'paymentType', 'payAmount', 'currency']),
      handle: (ctx, merchant, params, req) => createTransaction(ctx, merchant, params, { clientIp: req.ip }),
    }),
  ),
  {
    method: 'GET',
    url: '/payment/:apiKey/transaction/query',
    bucket: 'transaction-query',
    limit: 300,
    by: 'apiKey',
    doc: {
      summary: 'Query one transaction by transactionOrderId or relationId',
      fields: { transactionOrderId: schemas.string(200), relationId: schemas.string(200) },
      required: [],
      data: schemas.transaction,
    },
    handle: (ctx, merchant, params) => queryTransaction(ctx, merchant.id, params),
  },
  {
    method: 'POST',
    url: '/subscription/create',
    bucket: 'subscription-create',
    limit: 60,
    by: 'merchantId',
    doc: createDoc('Subscribe: a SUBSCRIPTION transaction without apiKey (paymentType optional)', ['requestId', 'relationId', 'planId', 'userId', 'cardInfo']),
    handle: (ctx, merchant, params, req) => {
      // This endpoint only subscribes; a PAY or CHECKOUT sent here is a mistake worth naming.
      if (params.paymentType !== undefined && params.paymentType !== null && params.paymentType !== '' && params.paymentType !== 'SUBSCRIPTION') {
        throw invalidParam('paymentType', 'must be SUBSCRIPTION (or left out) on /subscription/create');
      }
      return createTransaction(ctx, merchant, params, { clientIp: req.ip, defaultPaymentType: 'SUBSCRIPTION' });
    },
  },
];
