/** JSON schemas of SPEC §5/§6 resources, for the OpenAPI document only (services validate input). */
const str = { type: 'string' } as const;
const num = { type: 'number' } as const;
const int = { type: 'integer' } as const;
const time = { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}$', description: 'yyyy-MM-dd HH:mm:ss in the configured zone' } as const;

const obj = (properties: Record<string, object>, required: string[] = []): object => ({ type: 'object', properties, required });

export const schemas = {
  string: (maxLength: number): object => ({ type: 'string', maxLength }),
  amount: { type: 'string', pattern: '^(0|[1-9]\\d{0,9})(\\.\\d{1,2})?$' },
  integer: { oneOf: [int, { type: 'string', pattern: '^\\d+$' }] },
  jsonString: (what: string): object => ({ type: 'string', description: `JSON string of ${what}` }),
  plan: obj(
    {
      planId: str, merchantId: str, planName: str, description: str, price: num, currency: str, cycleType: str,
      cycleLength: int, trialDays: int, maxSubscriptions: int, currentSubscriptions: int, status: str, createTime: time,
    },
    ['planId', 'merchantId', 'planName', 'price', 'currency', 'cycleType', 'cycleLength', 'status', 'createTime'],
  ),
  transaction: obj(
    {
      transactionOrderId: str, relationId: str, subscriptionId: str, subscriptionCode: str,
      status: { type: 'string', enum: ['100000', '100040', '100050', '200000', '300000', '300010', '300020', '400010', '400000'] },
      payAmount: str, currency: str, txnAmount: str, txnCurrency: str, url: str, createTime: time, txnTime: time,
      merchantId: str, failReason: str,
    },
    ['transactionOrderId', 'relationId', 'status', 'payAmount', 'currency', 'merchantId'],
  ),
  refund: obj(
    { transactionOrderId: str, relationId: str, refundTransactionId: str, status: str, payAmount: str, currency: str, merchantId: str },
    ['transactionOrderId', 'refundTransactionId', 'status', 'payAmount', 'currency', 'merchantId'],
  ),
  tracking: obj(
    { successCount: int, failedCount: int, failedOrders: { type: 'array', items: str }, sign: str },
    ['successCount', 'failedCount', 'failedOrders', 'sign'],
  ),
  subscription: obj({
    subscriptionId: str, subscriptionCode: str, userId: str, planId: str, planName: str, planDescription: str,
    amount: num, currency: str, cycleType: str, cycleLength: int, status: str, nextBillingTime: time, startTime: time,
    endTime: time, cancelTime: time, billingCount: int, failedCount: int, totalPaid: num, createTime: time,
  }),
  billingRecord: obj({
    recordId: str, subscriptionCode: str, billingType: { type: 'string', enum: ['INITIAL', 'RENEW', 'RETRY'] }, amount: num,
    currency: str, scheduledTime: time, actualTime: time, status: str, transactionOrderId: str, failReason: str,
    retryCount: int, createTime: time,
  }),
  boolean: { type: 'boolean' },
};

export const transactionFields: Record<string, object> = {
  requestId: schemas.string(100),
  relationId: schemas.string(200),
  paymentType: { type: 'string', enum: ['PAY', 'CHECKOUT', 'SUBSCRIPTION'] },
  planId: schemas.string(200),
  userId: schemas.string(200),
  payAmount: schemas.amount,
  currency: schemas.string(200),
  clientIp: schemas.string(100),
  returnUrl: schemas.string(500),
  failedUrl: schemas.string(500),
  cancelUrl: schemas.string(500),
  notifyUrl: schemas.string(500),
  billingAddress: schemas.jsonString('an address object'),
  shippingAddress: schemas.jsonString('an address object'),
  cardInfo: schemas.jsonString('{holderName, cardNumber, month, year, cvv}'),
  items: schemas.jsonString('an array of {name, price, num, currency, sku, url, category}'),
};
