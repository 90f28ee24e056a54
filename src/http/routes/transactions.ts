import { RESULT_CODES } from '../../domain/errors.js';
import { createTransaction, queryTransaction } from '../../services/transactions/index.js';
import { SUBSCRIBE_REQUEST, TRANSACTION_REQUESTS } from '../../services/transactions/input.js';
import { TRANSACTION_QUERY_REQUEST } from '../../services/transactions/query.js';
import type { ApiRoute, RouteDoc } from '../api.js';
import { data } from '../openapi-schemas.js';

const { DUPLICATE_RELATION, REQUEST_CONFLICT, NOT_FOUND, PLAN_UNAVAILABLE, CARD_REJECTED, COUPON_NOT_APPLICABLE } =
  RESULT_CODES;

const CREATE_DESCRIPTION = `PAY charges the card in cardInfo; CHECKOUT answers 100050 and a data.url to send the customer to, where they enter their card; SUBSCRIPTION subscribes userId to planId and charges its first cycle (or starts its trial).

requestId makes the request idempotent: the same requestId with the same fields answers the same transaction as it stands now and charges nothing; with different fields it is 1006. relationId (your order number) can be used once, ever (1005).

A declined card is not an error: the answer is success with status 300000 and a failReason. 100040 means 3-D Secure: send the customer to data.url. The result of 100000, 100040 and 100050 arrives by callback.`;

const createDoc = (operationId: string, summary: string): RouteDoc => ({
  operationId,
  tag: 'Payments',
  summary,
  description: CREATE_DESCRIPTION,
  request: {
    discriminator: 'paymentType',
    variants: {
      PAY: { name: 'PayRequest', schema: TRANSACTION_REQUESTS.PAY },
      CHECKOUT: { name: 'CheckoutRequest', schema: TRANSACTION_REQUESTS.CHECKOUT },
      SUBSCRIPTION: { name: 'SubscriptionRequest', schema: TRANSACTION_REQUESTS.SUBSCRIPTION },
    },
  },
  data: data.transaction,
  errors: [DUPLICATE_RELATION, REQUEST_CONFLICT, NOT_FOUND, PLAN_UNAVAILABLE, CARD_REJECTED, COUPON_NOT_APPLICABLE],
});

/** The transaction path and its /v1 alias share one budget (SPEC §5): same bucket name. */
const transactionBudget = { bucket: 'transaction', limit: 60, by: 'apiKey' } as const;

export const transactionRoutes: ApiRoute[] = [
  {
    method: 'POST',
    url: '/payment/:apiKey/transaction',
    ...transactionBudget,
    doc: createDoc('createTransaction', 'Create a PAY, CHECKOUT or SUBSCRIPTION transaction'),
    handle: (ctx, merchant, params, req) => createTransaction(ctx, merchant, params, { clientIp: req.ip }),
  },
  {
    method: 'POST',
    url: '/v1/:apiKey/transaction',
    ...transactionBudget,
    doc: createDoc(
      'createTransactionV1',
      'Create a transaction (the original gateway’s path; same as /payment/{apiKey}/transaction)',
    ),
    handle: (ctx, merchant, params, req) => createTransaction(ctx, merchant, params, { clientIp: req.ip }),
  },
  {
    method: 'GET',
    url: '/payment/:apiKey/transaction/query',
    bucket: 'transaction-query',
    limit: 300,
    by: 'apiKey',
    doc: {
      operationId: 'queryTransaction',
      tag: 'Payments',
      summary: 'Query one transaction by transactionOrderId or relationId',
      description:
        'Send transactionOrderId, relationId, or both (then they must name the same transaction, else 1001). A 3-D Secure or checkout session left unfinished for 30 minutes is reported EXPIRED (300010).',
      request: { schema: TRANSACTION_QUERY_REQUEST },
      data: data.transaction,
      errors: [NOT_FOUND],
    },
    handle: (ctx, merchant, params) => queryTransaction(ctx, merchant.id, params),
  },
  {
    method: 'POST',
    url: '/subscription/create',
    bucket: 'subscription-create',
    limit: 60,
    by: 'merchantId',
    doc: {
      operationId: 'createSubscription',
      tag: 'Subscriptions',
      summary: 'Subscribe a user to a plan (a SUBSCRIPTION transaction without apiKey)',
      description:
        'The fields of a SUBSCRIPTION transaction; paymentType may be left out and any other value than SUBSCRIPTION is 1001. The amount and currency are the plan’s. requestId and relationId share their namespace with /payment/{apiKey}/transaction. A declined first charge still answers subscriptionId and subscriptionCode: that subscription is EXPIRED. couponCode starts the subscription with a coupon of the merchant; one that cannot be taken is 1012 and nothing is created.',
      request: { schema: SUBSCRIBE_REQUEST, name: 'SubscribeRequest' },
      data: data.transaction,
      errors: [DUPLICATE_RELATION, REQUEST_CONFLICT, NOT_FOUND, PLAN_UNAVAILABLE, CARD_REJECTED, COUPON_NOT_APPLICABLE],
    },
    handle: (ctx, merchant, params, req) =>
      createTransaction(ctx, merchant, params, { clientIp: req.ip, defaultPaymentType: 'SUBSCRIPTION' }),
  },
];
