import { z } from 'zod';
import type { FailReason } from '../channel/channel.js';
import { RESULT_CODES, type ResultCode } from '../domain/errors.js';
import { blankables, wireForms } from '../domain/fields.js';
import { SUBSCRIPTION_STATUSES } from '../domain/subscription-state.js';
import { CYCLE_TYPES } from '../services/plans.js';
import { RECORD_STATUSES } from '../services/subscriptions/queries.js';
import { STATUS } from '../services/transactions/view.js';
import { addressShape, itemShape } from '../services/transactions/input.js';
import { cardShape } from '../vault/card.js';
import { MAX_TRACKING_ENTRIES } from '../services/tracking.js';
import { invoiceSchema } from './openapi-invoices.js';
import { couponSchema } from './openapi-coupon-schema.js';

/**
 * What the API answers, as zod schemas rendered into the OpenAPI document. Requests are
 * described by the very schemas the services validate with; these describe the views the
 * services build (fields without a value are left out, so only always-sent fields are required).
 */

type Json = Record<string, unknown>;

/** A zod schema as JSON Schema 2020-12, with each field's wire form where its validator has one. */
export function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output' = 'input'): Json {
  const out = z.toJSONSchema(schema, {
    io,
    target: 'draft-2020-12',
    unrepresentable: 'any',
    override(ctx) {
      // A default the service applies (pageNum 1, pageSize 10) is part of the contract.
      const def = (ctx.zodSchema as unknown as { _zod: { def: { type: string; defaultValue?: unknown } } })._zod.def;
      if (def.type === 'default' && (ctx.jsonSchema as Json).default === undefined)
        (ctx.jsonSchema as Json).default = def.defaultValue;
      const zodSchema = ctx.zodSchema as unknown as z.ZodType;
      const json = ctx.jsonSchema as Json;
      const wire = wireForms.get(zodSchema);
      const blankable = blankables.has(zodSchema);
      if (!wire && !blankable) return;
      const keep = json.default;
      const own: Json = wire ?? { ...json };
      delete own.default;
      for (const k of Object.keys(json)) delete json[k];
      // "" and null mean "not sent" for an optional field: the document says what the validator takes.
      const extra: Json[] = [];
      // Typed, so generators give it the type '' rather than unknown.
      if (zodSchema.safeParse('').success && !takesEmptyString(own)) extra.push({ type: 'string', const: '' });
      if (zodSchema.safeParse(null).success) extra.push({ type: 'null' });
      const variants =
        Array.isArray(own.anyOf) && Object.keys(own).length === 1
          ? (own.anyOf as Json[]).filter((v) => v.type !== 'null')
          : [own];
      Object.assign(json, extra.length > 0 ? { anyOf: [...variants, ...extra] } : own);
      if (keep !== undefined) json.default = keep;
    },
  }) as Json;
  delete out.$schema;
  return out;
}

/** Whether a rendered schema already takes "" (a string without pattern, enum, const or minLength). */
function takesEmptyString(schema: Json): boolean {
  if (Array.isArray(schema.anyOf)) return (schema.anyOf as Json[]).some(takesEmptyString);
  const types = ([] as unknown[]).concat(schema.type ?? []);
  return (
    types.includes('string') &&
    schema.pattern === undefined &&
    schema.enum === undefined &&
    schema.const === undefined &&
    !schema.minLength
  );
}

const TIME_PATTERN = '^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}$';
const time = z
  .string()
  .regex(new RegExp(TIME_PATTERN))
  .meta({
    description: 'yyyy-MM-dd HH:mm:ss in the time zone paygate is configured with',
    examples: ['2026-01-31 09:00:00'],
  });
const amountText = z
  .string()
  .meta({ description: 'Amount formatted with the currency’s decimals ("10.00", "100" for JPY)', examples: ['10.00'] });
const amountNumber = z.number().meta({ description: 'Amount in major units as a JSON number', examples: [9.99] });
const currency = z
  .string()
  .regex(/^[A-Z]{3}$/)
  .meta({ description: 'ISO 4217 code', examples: ['USD'] });
const count = z.number().int().min(0);

export const FAIL_REASONS = [
  'card_declined',
  'insufficient_funds',
  'expired_card',
  'incorrect_cvc',
  'processing_error',
  'authentication_failed',
  'authentication_expired',
  // Stripe merchants: an off-session charge (a renewal, a plan change now) the card's bank wants authenticated.
  'authentication_required',
] as const satisfies readonly FailReason[];

export const TRANSACTION_STATUS_CODES = Object.values(STATUS).map(String) as [string, ...string[]];

const failReason = z.enum(FAIL_REASONS).meta({ description: 'Why a charge failed' });

const plan = z.object({
  planId: z.string(),
  merchantId: z.string(),
  planName: z.string(),
  description: z.string().optional(),
  price: amountNumber,
  currency,
  cycleType: z.enum(CYCLE_TYPES),
  cycleLength: z.number().int().min(1).max(365),
  trialDays: count,
  maxSubscriptions: count.meta({ description: '0 means no limit' }),
  currentSubscriptions: count.meta({ description: 'INCOMPLETE, ACTIVE and PAUSED subscriptions of the plan' }),
  status: z.enum(['ACTIVE', 'INACTIVE']),
  createTime: time,
});

const transaction = z.object({
  transactionOrderId: z.string(),
  relationId: z.string().optional(),
  subscriptionId: z
    .string()
    .optional()
    .meta({ description: 'A SUBSCRIPTION’s subscription, also when its first charge was declined' }),
  subscriptionCode: z.string().optional(),
  status: z.enum(TRANSACTION_STATUS_CODES).meta({
    description:
      '100000 ACCEPTED, 100040 REQUIRES_3DS, 100050 AWAITING_CHECKOUT, 200000 SUCCEEDED, 300000 FAILED, 300010 EXPIRED, 300020 CANCELLED, 400010 PARTIALLY_REFUNDED, 400000 REFUNDED',
  }),
  payAmount: amountText,
  currency,
  txnAmount: amountText.optional(),
  txnCurrency: currency.optional(),
  failReason: failReason.optional(),
  refundedAmount: amountText.optional().meta({ description: 'Sum refunded so far, when anything was' }),
  url: z.string().optional().meta({
    description: 'The hosted page to send the customer to (3-D Secure or checkout), while the transaction waits on it',
  }),
  createTime: time,
  txnTime: time.optional(),
  merchantId: z.string(),
});

const refund = z.object({
  transactionOrderId: z.string(),
  relationId: z.string().optional(),
  refundTransactionId: z.string(),
  status: z.enum([String(STATUS.SUCCEEDED), String(STATUS.PARTIALLY_REFUNDED), String(STATUS.REFUNDED)]).meta({
    description:
      'The transaction’s status after this refund: 400010 PARTIALLY_REFUNDED or 400000 REFUNDED; while the refund is still pending at the processor (refundStatus PENDING, Stripe merchants) the status it had before',
  }),
  refundStatus: z.literal('PENDING').optional().meta({
    description:
      'Present while the processor has not settled the refund yet (Stripe answers some refunds pending); its amount stays reserved',
  }),
  payAmount: amountText.meta({ description: 'This refund’s amount' }),
  currency,
  merchantId: z.string(),
});

const tracking = z.object({
  successCount: count,
  failedCount: count,
  failedOrders: z.array(z.string()).meta({
    description: 'For each failed entry its orderId, else its relationId, else # and its zero-based position ("#4")',
  }),
  sign: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .meta({
      description:
        'SHA-256 of the other fields’ values sorted by name and the secret (docs/api.md, "The tracking response sign")',
    }),
});

const subscriptionStatus = z.enum(SUBSCRIPTION_STATUSES);

const subscriptionListItem = z.object({
  subscriptionId: z.string(),
  subscriptionCode: z.string(),
  userId: z.string(),
  planId: z.string(),
  planName: z.string(),
  amount: amountNumber,
  currency,
  status: subscriptionStatus,
  nextBillingTime: time.optional().meta({ description: 'When the pending charge is scheduled; absent when none is' }),
  startTime: time,
  endTime: time.optional(),
  cancelTime: time.optional(),
  billingCount: count,
  failedCount: count,
  createTime: time,
});

const subscriptionDetail = subscriptionListItem.extend({
  planDescription: z.string().optional(),
  cycleType: z.enum(CYCLE_TYPES),
  cycleLength: z.number().int().min(1).max(365),
  totalPaid: amountNumber,
  creditBalance: amountNumber
    .optional()
    .meta({ description: 'Credit left over from a plan change, spent by the next charges; absent when none' }),
  pendingPlanId: z
    .string()
    .optional()
    .meta({ description: 'The plan the next renewal moves to, while a plan change at period end waits' }),
  couponCode: z.string().optional().meta({ description: 'The coupon held, while it still has a charge to discount' }),
  discountAmount: amountNumber
    .optional()
    .meta({ description: 'What the coupon takes off the next charge, once that charge is priced with it' }),
  email: z.string().optional().meta({
    description:
      'Where customer emails go: the first charge’s billingAddress.email, or the one set with POST /subscription/update; absent when none',
  }),
});

const billingRecord = z.object({
  recordId: z.string(),
  subscriptionCode: z.string(),
  billingType: z.enum(['INITIAL', 'RENEW', 'RETRY', 'CHANGE']).meta({
    description:
      'INITIAL first charge, RENEW renewal, RETRY retry of a failed renewal, CHANGE a plan change charged at once',
  }),
  amount: amountNumber,
  currency,
  scheduledTime: time,
  actualTime: time.optional(),
  status: z.enum(RECORD_STATUSES),
  transactionOrderId: z.string().optional(),
  failReason: failReason.optional(),
  retryCount: z.number().int().min(0).max(3),
  couponCode: z.string().optional().meta({ description: 'The coupon that discounted this charge' }),
  discountAmount: amountNumber.optional().meta({ description: 'What the coupon took off the plan’s price' }),
  createTime: time,
});

const planChange = z.object({
  subscriptionId: z.string(),
  subscriptionCode: z.string(),
  when: z.enum(['NOW', 'PERIOD_END']),
  result: z.enum(['CHANGED', 'SCHEDULED', 'UNSCHEDULED', 'DECLINED', 'ENDED', 'PENDING']).meta({
    description:
      'CHANGED: the new plan is in force; SCHEDULED: the next renewal moves to it; UNSCHEDULED: a pending change was withdrawn; DECLINED: the CHANGE charge was declined and the old plan stays; ENDED: the subscription was cancelled while the charge ran (the charge counts, the plan did not move); PENDING: Stripe has not answered the CHANGE charge yet, nothing moved, the renewal run records the outcome (no second charge) and PLAN_CHANGED reports a change',
  }),
  planId: z.string().meta({ description: 'The plan in force after the request' }),
  pendingPlanId: z
    .string()
    .optional()
    .meta({ description: 'The plan the next renewal moves to, while a change at period end waits' }),
  credit: amountNumber.meta({ description: 'Credit granted for the unused part of the paid period (NOW)' }),
  creditBalance: amountNumber.meta({ description: 'Credit the subscription carries into its next charges' }),
  currency,
  nextBillingTime: time.optional(),
  record: billingRecord.optional().meta({ description: 'The CHANGE billing record (NOW)' }),
  failReason: failReason.optional(),
});

const cardUpdate = z.object({
  subscriptionId: z.string(),
  subscriptionCode: z.string(),
  transactionOrderId: z.string().meta({ description: 'The zero-amount card check (a CARD_CHECK transaction)' }),
  status: z
    .enum([String(STATUS.SUCCEEDED), String(STATUS.REQUIRES_3DS), String(STATUS.FAILED), String(STATUS.ACCEPTED)])
    .meta({
      description:
        '200000: the new card replaced the old one; 100040: send the subscriber to url (3-D Secure) first; 300000: declined, the old card stays; 100000 (Stripe merchants): Stripe has not answered yet, the old card stays until its webhook or the renewal run settles the check',
    }),
  url: z.string().optional().meta({ description: 'The 3-D Secure page, while the check waits on it' }),
  failReason: failReason.optional(),
  card: z.string().optional().meta({ description: 'The card on file after the request, masked (424242******4242)' }),
  nextBillingTime: time
    .optional()
    .meta({ description: 'When the next charge is scheduled: now, for a retry the new card made due' }),
});

const ref = (name: string): Json => ({ $ref: `#/components/schemas/${name}` });

/** Named schemas of components.schemas; responses and requests refer to them by name. */
export const COMPONENTS: Record<string, { schema: z.ZodType; io: 'input' | 'output'; description: string }> = {
  CardInfo: {
    schema: cardShape,
    io: 'input',
    description:
      'A card: checked (Luhn, month 01–12, four-digit year, not expired, CVV 3–4 digits) before any charge; never stored for a PAY, the CVV never at all',
  },
  Address: { schema: addressShape, io: 'input', description: 'A billing or shipping address; every value a string' },
  Item: { schema: itemShape, io: 'input', description: 'An ordered item, shown on the checkout page' },
  Plan: { schema: plan, io: 'output', description: 'A subscription plan' },
  Transaction: { schema: transaction, io: 'output', description: 'A transaction as it stands at response time' },
  Refund: { schema: refund, io: 'output', description: 'The refund just made' },
  TrackingResult: { schema: tracking, io: 'output', description: 'How the tracking entries fared' },
  SubscriptionListItem: { schema: subscriptionListItem, io: 'output', description: 'A subscription in a user’s list' },
  Subscription: {
    schema: subscriptionDetail,
    io: 'output',
    description: 'A subscription with its plan’s cycle and what it has paid',
  },
  BillingRecord: { schema: billingRecord, io: 'output', description: 'One charge attempt of a subscription' },
  PlanChange: { schema: planChange, io: 'output', description: 'What a plan change did' },
  CardUpdate: { schema: cardUpdate, io: 'output', description: 'What a card update did' },
  Invoice: { schema: invoiceSchema, io: 'output', description: 'An invoice of a successful charge (immutable)' },
  Coupon: { schema: couponSchema, io: 'output', description: 'A discount coupon of the merchant' },
};

/** TrackingEntry is described by hand: its fields are judged per entry, not by a request schema. */
export const TRACKING_ENTRY: Json = {
  type: 'object',
  description: `One shipment. An entry without orderId and relationId, without trackingNo or trackingChannel (1–100 characters each), with a trackUrl that is not an http(s) URL of at most 500 characters, or naming another merchant's transaction is not refused: it is counted in failedCount and listed in failedOrders. At most ${MAX_TRACKING_ENTRIES} entries.`,
  properties: {
    orderId: { type: 'string', description: 'transactionOrderId of the order' },
    relationId: { type: 'string', description: 'or the merchant’s relationId of it' },
    trackingNo: { type: 'string', maxLength: 100 },
    trackingChannel: { type: 'string', maxLength: 100, examples: ['UPS'] },
    trackUrl: { type: 'string', pattern: '^[Hh][Tt][Tt][Pp][Ss]?://', maxLength: 500 },
  },
};

export const data = {
  plan: ref('Plan'),
  plans: { type: 'array', items: ref('Plan') },
  transaction: ref('Transaction'),
  refund: ref('Refund'),
  tracking: ref('TrackingResult'),
  subscription: ref('Subscription'),
  subscriptions: { type: 'array', items: ref('SubscriptionListItem') },
  billingPage: {
    type: 'object',
    properties: {
      total: { type: 'integer', minimum: 0 },
      pageNum: { type: 'integer', minimum: 1 },
      pageSize: { type: 'integer', minimum: 1, maximum: 100 },
      records: { type: 'array', items: ref('BillingRecord') },
    },
    required: ['total', 'pageNum', 'pageSize', 'records'],
  },
  invoice: ref('Invoice'),
  invoicePage: {
    type: 'object',
    properties: {
      total: { type: 'integer', minimum: 0 },
      pageNum: { type: 'integer', minimum: 1 },
      pageSize: { type: 'integer', minimum: 1, maximum: 100 },
      records: { type: 'array', items: ref('Invoice') },
    },
    required: ['total', 'pageNum', 'pageSize', 'records'],
  },
  planChange: ref('PlanChange'),
  cardUpdate: ref('CardUpdate'),
  coupon: ref('Coupon'),
  coupons: { type: 'array', items: ref('Coupon') },
  done: { type: 'boolean', const: true, description: 'The subscription changed state' },
  portalLink: {
    type: 'object',
    properties: {
      url: { type: 'string', format: 'uri', description: 'The portal page for the user; give it to them only' },
      expireTime: { type: 'string', description: 'When the link stops working (60 minutes)' },
    },
    required: ['url', 'expireTime'],
  },
} satisfies Record<string, Json>;

/** Every result code by name, for enums and descriptions. */
export const RESULT_NAMES: Record<ResultCode, string> = Object.fromEntries(
  Object.entries(RESULT_CODES).map(([name, code]) => [code, name]),
) as Record<ResultCode, string>;

/** What a request field means, wherever it appears (the request schemas carry the rules). */
export const FIELD_TEXT: Record<string, string> = {
  requestId:
    'Your id of this request, unique per merchant: repeating it with the same fields answers the first result again and charges nothing; with other fields it is 1006',
  relationId: 'Your order number; usable once per merchant, for good (1005 on reuse)',
  paymentType:
    'PAY charges cardInfo now; CHECKOUT sends the customer to a hosted page; SUBSCRIPTION subscribes userId to planId',
  planId: 'The plan to subscribe to (SUBSCRIPTION)',
  userId: 'Your id of the subscribing user (SUBSCRIPTION); a user may hold several subscriptions',
  payAmount:
    'Amount in the currency’s major unit as a decimal string, at most 10 digits and 2 decimals, greater than 0; a SUBSCRIPTION’s amount is its plan’s',
  currency: 'ISO 4217 code, e.g. USD',
  clientIp: 'The customer’s IP address (defaults to the caller’s)',
  returnUrl: 'Where the hosted page sends the customer after paying',
  failedUrl: 'Where the hosted page sends the customer after a failed payment',
  cancelUrl: 'Where the checkout page sends a customer who cancels',
  notifyUrl:
    'Where callbacks for this transaction go, instead of the merchant’s notifyUrl (kept for a subscription’s renewals)',
  billingAddress: 'The billing address: an Address, as a JSON string or as the object itself',
  shippingAddress: 'The shipping address: an Address, as a JSON string or as the object itself',
  cardInfo:
    'The card (required for PAY and SUBSCRIPTION, ignored for CHECKOUT): a CardInfo, as a JSON string or as the object itself',
  items: 'What is bought (at most 500 Items), shown on the checkout page: as a JSON string or as the array itself',
  transactionOrderId: 'paygate’s id of the transaction',
  refundAmount: 'Amount to refund, a decimal string greater than 0; at most what is still refundable',
  trackingList: '1 to 500 TrackingEntry objects (or that array as a JSON string)',
  planName: 'Shown to customers',
  description: 'Free text',
  price: 'Price per cycle as a decimal string; 0 only with a trial',
  cycleType: 'Unit of the billing cycle',
  cycleLength: 'Cycle units per charge (a JSON integer or a string of digits); at most one year in all',
  trialDays: 'Days before the first charge (the first charge is then a zero-amount card check)',
  maxSubscriptions: 'Most subscriptions the plan takes at once; 0 = no limit',
  subscriptionId: 'paygate’s id of the subscription',
  subscriptionCode: 'The subscription’s code (subscriptionCode of its detail)',
  status: 'Only those in this status',
  pageNum: 'Page number, from 1',
  when: 'NOW: change at once, crediting the unused part of the paid period and charging the difference; PERIOD_END (default): the next renewal charges the new plan',
  pageSize: 'Records per page, 1 to 100',
};
