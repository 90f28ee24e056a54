/**
 * The callbacks paygate POSTs to a merchant's notifyUrl (SPEC §8), as the OpenAPI document's
 * `webhooks`: generated clients then carry their body types. Every value is a string, so the
 * schemas say so even for amounts and counts; fields without a value are left out.
 */

type Json = Record<string, unknown>;

const text = (description: string, extra: Json = {}): Json => ({ type: 'string', description, ...extra });
const TIME = { pattern: '^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}$' };
const AMOUNT = { pattern: '^\\d+(\\.\\d+)?$', examples: ['10.00'] };

const SIGN_V1 = text(
  'signatureVersion 1 merchants only: the v1 signature of the other fields, with METHOD POST and PATH the notifyUrl’s path (docs/callbacks.md). v2 merchants get the X-Paygate-Signature header instead',
);

const PAYMENT_CALLBACK: Json = {
  type: 'object',
  description:
    'Sent for every final payment result and for every refund. A refund’s callback is this same body with the transaction as it stands after the refund: status 400010 or 400000, payAmount still the original amount, refundedAmount the total refunded so far. It names no refund: the refund’s id (refundTransactionId) and its own amount come only in the refund’s answer; what one refund added is the difference between two callbacks’ refundedAmount.',
  properties: {
    notifyType: { type: 'string', const: 'PAYMENT' },
    eventId: text(
      'Unique per event: store it and drop a callback whose eventId you have processed (delivery is at least once)',
    ),
    transactionOrderId: text('paygate’s id of the transaction'),
    relationId: text('Your order number, when the transaction had one'),
    merchantId: text('Your merchant id'),
    paymentType: {
      type: 'string',
      enum: ['PAY', 'CHECKOUT', 'SUBSCRIPTION', 'RENEWAL'],
      description:
        'RENEWAL only on a refund of a renewal charge: renewals themselves report through subscription callbacks',
    },
    status: {
      type: 'string',
      enum: ['200000', '300000', '300010', '300020', '400010', '400000'],
      description:
        'The transaction’s status: final results 200000, 300000, 300010, 300020; after a refund 400010 PARTIALLY_REFUNDED or 400000 REFUNDED',
    },
    payAmount: text(
      'The transaction’s amount as charged; on a refund’s callback too (not the refund’s amount)',
      AMOUNT,
    ),
    currency: text('ISO 4217 code', { pattern: '^[A-Z]{3}$' }),
    txnAmount: text('Amount in the processor’s currency, when it charged one', AMOUNT),
    txnCurrency: text('The processor’s currency', { pattern: '^[A-Z]{3}$' }),
    txnTime: text('When the charge was decided (yyyy-MM-dd HH:mm:ss, paygate’s time zone)', TIME),
    failReason: text('Why a charge failed (on a failure only)'),
    refundedAmount: text(
      'Total refunded so far, this refund included; present once anything was refunded. With status 400000 it equals payAmount',
      AMOUNT,
    ),
    subscriptionId: text('The subscription, on the callback of a SUBSCRIPTION’s first charge'),
    subscriptionCode: text('The subscription’s code, with subscriptionId'),
    invoiceNumber: text('A successful charge’s invoice (GET /invoice/detail)'),
    invoiceUrl: text('A successful charge’s hosted invoice page'),
    creditNoteNumber: text('A refund’s credit note'),
    sign: SIGN_V1,
  },
  required: [
    'notifyType',
    'eventId',
    'transactionOrderId',
    'merchantId',
    'paymentType',
    'status',
    'payAmount',
    'currency',
  ],
};

const SUBSCRIPTION_CALLBACK: Json = {
  type: 'object',
  description:
    'Sent for every renewal result and for a subscription’s end; PLAN_CHANGED when a plan change took effect. The record fields describe the charge the event is about.',
  properties: {
    notifyType: { type: 'string', const: 'SUBSCRIPTION' },
    eventId: text('Unique per event: store it and drop a callback whose eventId you have processed'),
    eventType: {
      type: 'string',
      enum: ['RENEW_SUCCEEDED', 'RENEW_FAILED', 'SUBSCRIPTION_FAILED', 'SUBSCRIPTION_EXPIRED', 'PLAN_CHANGED'],
    },
    merchantId: text('Your merchant id'),
    subscriptionId: text('paygate’s id of the subscription'),
    subscriptionCode: text('The subscription’s code'),
    userId: text('Your id of the subscribing user'),
    planId: text('The plan in force (PLAN_CHANGED: the new plan)'),
    subscriptionStatus: {
      type: 'string',
      enum: ['INCOMPLETE', 'ACTIVE', 'PAUSED', 'CANCELLED', 'FAILED', 'EXPIRED'],
    },
    recordId: text('The billing record'),
    billingType: { type: 'string', enum: ['INITIAL', 'RENEW', 'RETRY', 'CHANGE'] },
    amount: text('The record’s amount', AMOUNT),
    currency: text('ISO 4217 code', { pattern: '^[A-Z]{3}$' }),
    recordStatus: { type: 'string', enum: ['PENDING', 'SUCCESS', 'FAILED', 'CANCELLED'] },
    retryCount: text('Retries made so far, in decimal', { pattern: '^\\d+$' }),
    failReason: text('Why the charge failed'),
    transactionOrderId: text('The charge’s transaction'),
    couponCode: text('The coupon that discounted this charge (only when one did)'),
    discountAmount: text(
      'What the coupon took off the plan’s price (only when a coupon discounted the charge)',
      AMOUNT,
    ),
    nextBillingTime: text('When the next charge is scheduled', TIME),
    eventTime: text('When it happened (the renewal run’s clock)', TIME),
    updateCardUrl: text('RENEW_FAILED with retries left: the page where the subscriber enters a new card'),
    invoiceNumber: text('A successful charge’s invoice: RENEW_SUCCEEDED, a PLAN_CHANGED charged at once'),
    invoiceUrl: text('A successful charge’s hosted invoice page'),
    paidThrough: text(
      'A PAUSED or CANCELLED subscription: the end of its paid period (a charge under way at the pause or cancel that succeeded extends it)',
      TIME,
    ),
    endTime: text(
      'A CANCELLED subscription: when it ends — the end of the period a charge under way at the cancel paid for, if it succeeded',
      TIME,
    ),
    previousPlanId: text('PLAN_CHANGED: the plan left'),
    changeWhen: { type: 'string', enum: ['NOW', 'PERIOD_END'], description: 'PLAN_CHANGED: when it took effect' },
    credit: text('PLAN_CHANGED: credit granted for the unused part of the old plan’s period', AMOUNT),
    creditBalance: text('PLAN_CHANGED: credit carried into the next charges', AMOUNT),
    sign: SIGN_V1,
  },
  required: [
    'notifyType',
    'eventId',
    'eventType',
    'merchantId',
    'subscriptionId',
    'subscriptionCode',
    'userId',
    'planId',
    'subscriptionStatus',
    'recordId',
    'billingType',
    'amount',
    'currency',
    'recordStatus',
    'retryCount',
    'eventTime',
  ],
};

export const CALLBACK_SCHEMAS: Record<string, Json> = {
  PaymentCallback: PAYMENT_CALLBACK,
  SubscriptionCallback: SUBSCRIPTION_CALLBACK,
};

function webhook(operationId: string, schema: string, summary: string): Json {
  return {
    post: {
      operationId,
      tags: ['Callbacks'],
      summary,
      description:
        'POSTed to the transaction’s (or subscription’s) notifyUrl, else the merchant’s. Answer any 2xx once stored; anything else is retried after 1 min, 5 min, 30 min, 2 h, 6 h and 24 h. See docs/callbacks.md.',
      security: [],
      parameters: [
        {
          name: 'X-Paygate-Event-Id',
          in: 'header',
          required: true,
          description: 'The body’s eventId',
          schema: { type: 'string' },
        },
        {
          name: 'X-Paygate-Signature',
          in: 'header',
          required: false,
          description:
            'signatureVersion 2 merchants: t=<unix seconds>,v2=<hex>, hex = HMAC-SHA256(secret, t + "." + raw body)',
          schema: { type: 'string' },
        },
      ],
      requestBody: {
        required: true,
        content: { 'application/json': { schema: { $ref: `#/components/schemas/${schema}` } } },
      },
      responses: { '200': { description: 'Stored (any 2xx will do; the body is ignored)' } },
    },
  };
}

export const WEBHOOKS: Record<string, Json> = {
  paymentCallback: webhook('paymentCallback', 'PaymentCallback', 'A payment result or a refund'),
  subscriptionCallback: webhook('subscriptionCallback', 'SubscriptionCallback', 'A subscription event'),
};

export const CALLBACKS_TAG_TEXT = 'What paygate POSTs to your notifyUrl: payment results, refunds, subscription events';
