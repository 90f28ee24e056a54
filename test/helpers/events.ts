import { rowsOf } from './rows.js';
import type { Ctx } from '../../src/ctx.js';
import type { Tx } from '../../src/store/store.js';

/** SPEC §8 bodies, written out by hand (every value a string; fields without value left out). */
export function paymentBody(merchantId: string, n: number, extra: Record<string, string> = {}): Record<string, string> {
  return {
    notifyType: 'PAYMENT',
    transactionOrderId: `txn_test_${n}`,
    relationId: `order-${n}`,
    merchantId,
    paymentType: 'PAY',
    status: '200000',
    payAmount: '10.00',
    currency: 'USD',
    txnAmount: '10.00',
    txnCurrency: 'USD',
    txnTime: '2026-01-15 09:00:00',
    ...extra,
  };
}

export const SUBSCRIPTION_EVENT_TYPES = [
  'RENEW_SUCCEEDED',
  'RENEW_FAILED',
  'SUBSCRIPTION_FAILED',
  'SUBSCRIPTION_EXPIRED',
] as const;

export function subscriptionBody(
  merchantId: string,
  subscriptionId: string,
  eventType: (typeof SUBSCRIPTION_EVENT_TYPES)[number],
  n: number,
): Record<string, string> {
  const failed = eventType !== 'RENEW_SUCCEEDED';
  return {
    notifyType: 'SUBSCRIPTION',
    eventType,
    merchantId,
    subscriptionId,
    subscriptionCode: `SC_${subscriptionId}`,
    userId: 'user-1',
    planId: 'pln_test',
    subscriptionStatus:
      eventType === 'SUBSCRIPTION_FAILED' ? 'FAILED' : eventType === 'SUBSCRIPTION_EXPIRED' ? 'EXPIRED' : 'ACTIVE',
    recordId: `rec_test_${n}`,
    billingType: 'RENEW',
    amount: '9.99',
    currency: 'USD',
    recordStatus: failed ? 'FAILED' : 'SUCCESS',
    retryCount: failed ? '1' : '0',
    ...(failed ? { failReason: 'INSUFFICIENT_FUNDS' } : {}),
    transactionOrderId: `txn_renew_${n}`,
    ...(eventType === 'RENEW_SUCCEEDED' ? { nextBillingTime: '2026-02-15 09:00:00' } : {}),
    eventTime: '2026-01-15 09:00:00',
  };
}

export interface TestEvent {
  merchantId: string;
  body: Record<string, string>;
  subscriptionId?: string;
  notifyUrl?: string;
}

/** Write an event as the payment / renewal services do (in a unit of work); it must have a target. */
export async function enqueue(ctx: Ctx, e: TestEvent): Promise<string> {
  return ctx.store.transaction((tx) => enqueueIn(tx, ctx.clock.now(), e));
}

/** The same inside a unit of work the test opened (many events in one commit). */
export async function enqueueIn(tx: Tx, now: number, e: TestEvent): Promise<string> {
  const id = await tx.enqueueEvent({
    merchantId: e.merchantId,
    kind: e.body.notifyType === 'PAYMENT' ? 'PAYMENT' : 'SUBSCRIPTION',
    eventType: e.body.eventType ?? 'PAYMENT',
    subscriptionId: e.subscriptionId ?? null,
    notifyUrl: e.notifyUrl ?? null,
    body: e.body,
    now,
  });
  if (id === undefined) throw new Error('event not written: no notifyUrl on the event or its merchant');
  return id;
}

export interface OutboxRow {
  id: string;
  status: string;
  attempts: number;
  nextAttemptAt: number;
  lastHttpStatus: number | null;
  lastError: string | null;
  deliveredAt: number | null;
}

export async function outboxRow(ctx: Ctx, id: string): Promise<OutboxRow> {
  return (await rowsOf(ctx).get(
    `SELECT id, status, attempts, next_attempt_at AS "nextAttemptAt", last_http_status AS "lastHttpStatus",
         last_error AS "lastError", delivered_at AS "deliveredAt" FROM outbox_events WHERE id = ?`,
    id,
  )) as OutboxRow;
}
