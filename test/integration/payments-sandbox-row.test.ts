import { afterEach, describe, expect, it } from 'vitest';
import { requireMerchant } from '../../src/services/merchants.js';
import { createTransaction } from '../../src/services/transactions/index.js';
import type { Store, TransactionRow } from '../../src/store/store.js';
import { cardYear } from '../helpers/cards.js';
import { CLOSED_NOTIFY_URL, type TestApp, TEST_NOW, testApp, testMerchant } from '../helpers/ctx.js';

/**
 * A new sandbox PAY is one write of the store (Store.payOnSandbox), which inserts the transaction
 * as its outcome leaves it and answers that row: the service then answers the request from it
 * without reading it back. So the row answered must be the row stored, value for value, on the
 * run's engine.
 */
let app: TestApp;
afterEach(async () => app?.close());

const card = (cardNumber: string) => JSON.stringify({ cardNumber, month: '12', year: cardYear(TEST_NOW), cvv: '123' });

describe('a new sandbox PAY', () => {
  it('answers the row it stored: approved, declined, or waiting on 3-D Secure', async () => {
    app = await testApp();
    const ctx = app.ctx;
    const m = await requireMerchant(ctx, (await testMerchant(ctx, { notifyUrl: CLOSED_NOTIFY_URL })).merchantId);
    const answered: TransactionRow[] = [];
    const store = ctx.store as Store;
    const payOnSandbox = store.payOnSandbox.bind(store);
    store.payOnSandbox = async (a, o) => {
      const paid = await payOnSandbox(a, o);
      if (paid.accepted === 'accepted' && paid.recorded.row) answered.push(paid.recorded.row);
      return paid;
    };
    const cases = [
      ['4242424242424242', '200000'],
      ['4000000000000002', '300000'],
      ['4000000000003220', '100040'],
    ] as const;
    for (const [i, [number, status]] of cases.entries()) {
      const view = await createTransaction(ctx, m, {
        requestId: `row-${i}`,
        relationId: `order-row-${i}`,
        paymentType: 'PAY',
        payAmount: '12.34',
        currency: 'USD',
        cardInfo: card(number),
        items: JSON.stringify([{ name: 'Mug', price: '12.34' }]),
        billingAddress: JSON.stringify({ firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com' }),
      });
      expect(view.status).toBe(status);
    }
    expect(answered).toHaveLength(cases.length);
    for (const row of answered) expect(row).toStrictEqual(await ctx.store.getTransaction(row.id));
  });
});
