import { rowsOf } from '../helpers/rows.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createTransaction, queryTransaction } from '../../src/services/transactions/index.js';
import { requireMerchant } from '../../src/services/merchants.js';
import { CLOSED_NOTIFY_URL, onPostgres, testApp, testMerchant, type TestApp, TEST_NOW } from '../helpers/ctx.js';
import type { Channel } from '../../src/channel/channel.js';
import { cardYear } from '../helpers/cards.js';

let app: TestApp;
afterEach(async () => app?.close());

const card = (cardNumber = '4242424242424242', extra: Record<string, string> = {}) =>
  JSON.stringify({ holderName: 'Ada L', cardNumber, month: '12', year: cardYear(TEST_NOW), cvv: '123', ...extra });

let seq = 0;
function req(over: Record<string, unknown> = {}): Record<string, unknown> {
  seq++;
  return {
    requestId: `req-${seq}`,
    relationId: `rel-${seq}`,
    paymentType: 'PAY',
    payAmount: '10.00',
    currency: 'USD',
    cardInfo: card(),
    ...over,
  };
}

async function setup(opts: { channel?: Channel } = {}) {
  app = await testApp();
  const m = await requireMerchant(app.ctx, (await testMerchant(app.ctx, { notifyUrl: CLOSED_NOTIFY_URL })).merchantId);
  if (opts.channel) app.ctx.channel = opts.channel;
  return { ctx: app.ctx, m };
}

const count = async (sql: string, ...args: unknown[]) => ((await rowsOf(app.ctx).get(sql, ...args)) as { n: number }).n;

describe('PAY', () => {
  it('approves 4242… with 200000, txnAmount/txnCurrency and txnTime', async () => {
    const { ctx, m } = await setup();
    const v = await createTransaction(ctx, m, req());
    expect(v).toMatchObject({
      status: '200000',
      payAmount: '10.00',
      currency: 'USD',
      txnAmount: '10.00',
      txnCurrency: 'USD',
      merchantId: m.id,
    });
    expect(v.txnTime).toBe('2026-01-15 09:00:00');
    expect(v.failReason).toBeUndefined();
    expect(v.url).toBeUndefined();
  });

  // On SQLite the sandbox's charge is a row of the same database: acceptance and outcome commit
  // together. PostgreSQL writes them as two statements (postgres-statements.test.ts counts them).
  it.skipIf(onPostgres)(
    'on SQLite writes a new sandbox PAY, invoice and callback included, in one unit of work',
    async () => {
      const { ctx, m } = await setup();
      const store = ctx.store;
      const unitOfWork = store.transaction.bind(store);
      let units = 0;
      store.transaction = (fn) => {
        units++;
        return unitOfWork(fn);
      };
      const v = await createTransaction(ctx, m, req());
      expect(v.status).toBe('200000');
      expect(units).toBe(1);
      expect(await count('SELECT count(*) AS n FROM sandbox_charges')).toBe(1);
      expect(await count('SELECT count(*) AS n FROM invoices')).toBe(1);
      expect(await count(`SELECT count(*) AS n FROM outbox_events WHERE kind = 'PAYMENT'`)).toBe(1);
    },
  );

  it.each([
    ['4000000000000002', 'card_declined'],
    ['4000000000009995', 'insufficient_funds'],
    ['4000000000000069', 'expired_card'],
    ['4000000000000127', 'incorrect_cvc'],
    ['4000000000000119', 'processing_error'],
  ])('declines %s with 300000 and %s', async (pan, reason) => {
    const { ctx, m } = await setup();
    const v = await createTransaction(ctx, m, req({ cardInfo: card(pan) }));
    expect(v.status).toBe('300000');
    expect(v.failReason).toBe(reason);
  });

  it('asks for 3DS with 100040 and a /3ds/ url on the public base', async () => {
    const { ctx, m } = await setup();
    const v = await createTransaction(ctx, m, req({ cardInfo: card('4000000000003220') }));
    expect(v.status).toBe('100040');
    expect(v.url).toMatch(new RegExp(`^${ctx.config.publicUrl}/3ds/[A-Za-z0-9_-]{20,}$`));
    const row = (await rowsOf(ctx).get('SELECT page_expires_at AS e FROM transactions')) as { e: number };
    expect(row.e).toBe(ctx.clock.now() + 30 * 60_000);
  });

  it('formats zero-decimal currencies without a fraction and refuses one with a fraction', async () => {
    const { ctx, m } = await setup();
    expect((await createTransaction(ctx, m, req({ payAmount: '100', currency: 'JPY' }))).payAmount).toBe('100');
    await expect(createTransaction(ctx, m, req({ payAmount: '100.50', currency: 'JPY' }))).rejects.toMatchObject({
      code: '1001',
      field: 'payAmount',
    });
    expect((await createTransaction(ctx, m, req({ payAmount: '100.00', currency: 'JPY' }))).payAmount).toBe('100');
  });

  it('writes one PAYMENT outbox event per final result, none for 3DS pending', async () => {
    const { ctx, m } = await setup();
    await createTransaction(ctx, m, req());
    await createTransaction(ctx, m, req({ cardInfo: card('4000000000000002') }));
    await createTransaction(ctx, m, req({ cardInfo: card('4000000000003220') }));
    expect(await count("SELECT count(*) AS n FROM outbox_events WHERE kind = 'PAYMENT'")).toBe(2);
    const body = JSON.parse(
      ((await rowsOf(ctx).get('SELECT payload FROM outbox_events ORDER BY seq LIMIT 1')) as { payload: string })
        .payload,
    );
    expect(body).toMatchObject({ notifyType: 'PAYMENT', status: '200000', payAmount: '10.00', paymentType: 'PAY' });
    expect(JSON.stringify(body)).not.toContain('4242424242424242');
  });

  it('a notifyUrl in the request is kept on the transaction and its event', async () => {
    const { ctx, m } = await setup();
    await createTransaction(ctx, m, req({ notifyUrl: 'https://shop.example/hook' }));
    expect(((await rowsOf(ctx).get('SELECT notify_url AS u FROM outbox_events')) as { u: string }).u).toBe(
      'https://shop.example/hook',
    );
  });
});

describe('CHECKOUT', () => {
  it('answers 100050 with a /checkout/ url and charges nothing; cardInfo is ignored', async () => {
    const { ctx, m } = await setup();
    const v = await createTransaction(ctx, m, req({ paymentType: 'CHECKOUT', cardInfo: 'not even json' }));
    expect(v.status).toBe('100050');
    expect(v.url).toMatch(/\/checkout\/[A-Za-z0-9_-]+$/);
    expect(await count('SELECT count(*) AS n FROM sandbox_charges')).toBe(0);
  });
});

describe('requestId idempotency and relationId', () => {
  it('the same request again returns the same transaction and charges once', async () => {
    const { ctx, m } = await setup();
    const r = req();
    const a = await createTransaction(ctx, m, r);
    const b = await createTransaction(ctx, m, { ...r, sign: 'ignored-and-different' });
    expect(b.transactionOrderId).toBe(a.transactionOrderId);
    expect(b.status).toBe('200000');
    expect(await count('SELECT count(*) AS n FROM sandbox_charges')).toBe(1);
  });

  it('the same requestId with different fields is 1006, nothing written', async () => {
    const { ctx, m } = await setup();
    const r = req();
    await createTransaction(ctx, m, r);
    await expect(createTransaction(ctx, m, { ...r, payAmount: '11.00' })).rejects.toMatchObject({ code: '1006' });
    expect(await count('SELECT count(*) AS n FROM transactions')).toBe(1);
  });

  it('relationId reused under another requestId is 1005, also after a failure', async () => {
    const { ctx, m } = await setup();
    const r = req({ cardInfo: card('4000000000000002') });
    await createTransaction(ctx, m, r);
    await expect(createTransaction(ctx, m, { ...req(), relationId: r.relationId })).rejects.toMatchObject({
      code: '1005',
    });
    expect(await count('SELECT count(*) AS n FROM sandbox_charges')).toBe(1);
  });

  it('relationId is per merchant: another merchant may use it', async () => {
    const { ctx, m } = await setup();
    const other = await requireMerchant(ctx, (await testMerchant(ctx, { name: 'Other' })).merchantId);
    const r = req();
    await createTransaction(ctx, m, r);
    expect((await createTransaction(ctx, other, r)).status).toBe('200000');
  });

  it('concurrent duplicates in one process charge once; duplicates see the one transaction', async () => {
    const { ctx, m } = await setup();
    const r = req();
    const views = await Promise.all(Array.from({ length: 20 }, () => createTransaction(ctx, m, r)));
    expect(new Set(views.map((v) => v.transactionOrderId)).size).toBe(1);
    expect(views.every((v) => v.status === '200000' || v.status === '100000')).toBe(true);
    expect(await count('SELECT count(*) AS n FROM sandbox_charges')).toBe(1);
  });

  it('a channel that throws leaves 100000; the same request again re-drives the charge once', async () => {
    const { ctx, m } = await setup();
    const real = ctx.channel;
    let fail = true;
    ctx.channel = {
      name: real.name,
      completeAction: (ref, p) => real.completeAction(ref, p),
      refund: (r) => real.refund(r),
      async charge(r) {
        const result = await real.charge(r); // the money moved, then the answer was lost
        if (fail) throw new Error('network reset');
        return result;
      },
    };
    const r = req();
    await expect(createTransaction(ctx, m, r)).rejects.toThrow('network reset');
    expect(((await rowsOf(ctx).get('SELECT status FROM transactions')) as { status: number }).status).toBe(100000);
    fail = false;
    const v = await createTransaction(ctx, m, r);
    expect(v.status).toBe('200000');
    expect(await count('SELECT count(*) AS n FROM sandbox_charges')).toBe(1);
    expect(await count("SELECT count(*) AS n FROM outbox_events WHERE kind = 'PAYMENT'")).toBe(1);
  });

  it('a duplicate arriving while the first is charging sees 100000 and does not charge', async () => {
    const { ctx, m } = await setup();
    const real = ctx.channel;
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => (release = r));
    let calls = 0;
    // A processor that takes its time (no prepareCharge: the charge and its outcome are two writes).
    ctx.channel = {
      name: real.name,
      charge: async (r) => {
        calls++;
        await gate;
        return real.charge(r);
      },
      completeAction: real.completeAction,
      refund: real.refund,
    };
    const r = req();
    const first = createTransaction(ctx, m, r);
    await new Promise((res) => setTimeout(res, 20));
    const dup = await createTransaction(ctx, m, r);
    expect(dup.status).toBe('100000');
    release();
    expect((await first).status).toBe('200000');
    expect(calls).toBe(1);
  });
});

describe('query', () => {
  it('finds by transactionOrderId or relationId; a foreign id is 1007', async () => {
    const { ctx, m } = await setup();
    const other = await requireMerchant(ctx, (await testMerchant(ctx, { name: 'Other' })).merchantId);
    const r = req();
    const v = await createTransaction(ctx, m, r);
    expect((await queryTransaction(ctx, m.id, { transactionOrderId: v.transactionOrderId })).status).toBe('200000');
    expect((await queryTransaction(ctx, m.id, { relationId: r.relationId })).transactionOrderId).toBe(
      v.transactionOrderId,
    );
    await expect(queryTransaction(ctx, other.id, { transactionOrderId: v.transactionOrderId })).rejects.toThrow(
      expect.objectContaining({ code: '1007' }),
    );
    await expect(queryTransaction(ctx, m.id, {})).rejects.toThrow(expect.objectContaining({ code: '1001' }));
  });
});
