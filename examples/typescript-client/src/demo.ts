import type { PaygateClient, PaygateCredentials } from './client.js';
import type { components } from './paygate.js';

type Transaction = components['schemas']['Transaction'];
type Refund = components['schemas']['Refund'];
type Subscription = components['schemas']['Subscription'];

export interface DemoResult {
  payment: Transaction;
  refund: Refund;
  subscription: Subscription;
}

/** A refused request: paygate's result code and message, thrown so the caller sees what to fix. */
export class PaygateRefusal extends Error {
  constructor(
    /** The rtn_code, or "unavailable" when the server was shutting down (retry then). */
    readonly rtnCode: string,
    message: string,
  ) {
    super(`${rtnCode}: ${message}`);
  }
}

/** Every error answer: the envelope of a refusal, or the 503 of a server shutting down. */
type ErrorAnswer = { rtn_code: string; rtn_msg: string } | { statusCode: 503; message?: string };

function refused(error: ErrorAnswer): PaygateRefusal {
  return 'rtn_code' in error
    ? new PaygateRefusal(error.rtn_code, error.rtn_msg)
    : new PaygateRefusal('unavailable', error.message ?? 'the server is shutting down; retry');
}

/** A sandbox test card (any future expiry). */
const testCard = (cardNumber: string): components['schemas']['CardInfo'] => ({
  holderName: 'Ada Lovelace',
  cardNumber,
  month: '12',
  year: String(new Date().getUTCFullYear() + 2),
  cvv: '123',
});

/**
 * What an integration does first: take a payment, refund part of it, create a plan and subscribe
 * a user to it. Every request and answer is typed from paygate's OpenAPI document.
 */
export async function runDemo(
  client: PaygateClient,
  who: Pick<PaygateCredentials, 'merchantId' | 'apiKey'>,
  orderPrefix: string,
): Promise<DemoResult> {
  const { merchantId, apiKey } = who;

  const pay = await client.POST('/payment/{apiKey}/transaction', {
    params: { path: { apiKey } },
    body: {
      merchantId,
      requestId: `${orderPrefix}-pay`,
      relationId: `${orderPrefix}-order-1`,
      paymentType: 'PAY',
      payAmount: '25.00',
      currency: 'USD',
      cardInfo: testCard('4242424242424242'),
      items: [{ name: 'Coffee mug', price: '25.00', num: '1' }],
    },
  });
  if (pay.error) throw refused(pay.error);
  const payment = pay.data.data;

  const back = await client.POST('/payment/{apiKey}/refund', {
    params: { path: { apiKey } },
    body: {
      merchantId,
      requestId: `${orderPrefix}-refund`,
      transactionOrderId: payment.transactionOrderId,
      refundAmount: '5.00',
    },
  });
  if (back.error) throw refused(back.error);

  const plan = await client.POST('/subscription/plan/create', {
    body: { merchantId, planName: 'Coffee club', price: '9.99', currency: 'USD', cycleType: 'MONTHLY', cycleLength: 1 },
  });
  if (plan.error) throw refused(plan.error);

  const subscribe = await client.POST('/subscription/create', {
    body: {
      merchantId,
      requestId: `${orderPrefix}-sub`,
      relationId: `${orderPrefix}-order-2`,
      planId: plan.data.data.planId,
      userId: 'user-42',
      cardInfo: testCard('5555555555554444'),
    },
  });
  if (subscribe.error) throw refused(subscribe.error);
  const subscriptionId = subscribe.data.data.subscriptionId;
  if (subscriptionId === undefined) throw new Error('a subscription transaction always names its subscription');

  const detail = await client.GET('/subscription/detail', { params: { query: { merchantId, subscriptionId } } });
  if (detail.error) throw refused(detail.error);

  return { payment, refund: back.data.data, subscription: detail.data.data };
}
