import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildServer } from '../../src/http/server.js';
import { testApp } from '../helpers/ctx.js';
import { type StripeShop, stripeShop } from '../helpers/stripe-shop.js';
import { signatureHeader, type StandinAccount, type StripeStandin } from '../helpers/stripe-standin/index.js';
import { client, type Served, type TestMerchant } from '../helpers/serve.js';

/** Stripe's webhook for a merchant: verified over the raw body, settling what was left in flight, once. */
let stripe: StripeStandin;
let srv: Served;
let shop: StripeShop;
let acct: StandinAccount;
let m: TestMerchant;
let n = 0;

const YEAR = String(new Date().getUTCFullYear() + 2);
const card = (cardNumber: string) =>
  JSON.stringify({ holderName: 'Ada Lovelace', cardNumber, month: '12', year: YEAR, cvv: '123' });
const one = async <T>(sql: string, ...args: unknown[]): Promise<T> => (await shop.rows.get<T>(sql, ...args)) as T;

beforeAll(async () => {
  shop = await stripeShop({ prefix: 'paygate-stripe-hook-', name: 'Stripe Webhooks', webhookSecret: true });
  ({ stripe, acct, m, srv } = shop);
  acct.setWebhookUrl(`${srv.url}/channel/stripe/${m.merchantId}/webhook`);
});
afterAll(() => shop?.stop());

async function pay() {
  n++;
  const r = await client(srv.url, m).post(`/payment/${m.apiKey}/transaction`, {
    requestId: `w-${n}`,
    relationId: `w-${n}`,
    paymentType: 'PAY',
    payAmount: '10.00',
    currency: 'USD',
    cardInfo: card('4242424242424242'),
  });
  return r.body.data as { transactionOrderId: string; status: string };
}

describe('POST /channel/stripe/{merchantId}/webhook', () => {
  it('an intent left processing answers 100000; payment_intent.succeeded settles it to 200000', async () => {
    stripe.faults.inject({ kind: 'processing' }, { match: { path: /\/confirm$/ } });
    const t = await pay();
    expect(t.status).toBe('100000');
    const { channel_ref: intent } = await one<{ channel_ref: string }>(
      'SELECT channel_ref FROM transactions WHERE id = ?',
      t.transactionOrderId,
    );
    await stripe.webhooksIdle();
    stripe.settleIntent(intent, 'succeeded');
    await stripe.webhooksIdle();
    const d = stripe.deliveries.filter((x) => x.type === 'payment_intent.succeeded').at(-1);
    expect(d?.status).toBe(200);
    expect(
      (await one<{ status: number }>('SELECT status FROM transactions WHERE id = ?', t.transactionOrderId)).status,
    ).toBe(200000);
  });

  it('a charge settled by payment_intent.succeeded gets its invoice then; a refund settled by refund.updated, one credit note', async () => {
    stripe.faults.inject({ kind: 'processing' }, { match: { path: /\/confirm$/ } });
    const t = await pay();
    const invoices = () =>
      one<{ n: number | string }>('SELECT count(*) AS n FROM invoices WHERE transaction_id = ?', t.transactionOrderId);
    expect(Number((await invoices()).n)).toBe(0);
    const { channel_ref: intent } = await one<{ channel_ref: string }>(
      'SELECT channel_ref FROM transactions WHERE id = ?',
      t.transactionOrderId,
    );
    await stripe.webhooksIdle();
    stripe.settleIntent(intent, 'succeeded');
    await stripe.webhooksIdle();
    expect(Number((await invoices()).n)).toBe(1);
    acct.setRefundMode('pending');
    try {
      await client(srv.url, m).post(`/payment/${m.apiKey}/refund`, {
        transactionOrderId: t.transactionOrderId,
        refundAmount: '3.00',
      });
      const notes = () =>
        one<{ n: number | string }>(
          'SELECT count(*) AS n FROM credit_notes WHERE transaction_id = ?',
          t.transactionOrderId,
        );
      expect(Number((await notes()).n)).toBe(0);
      const { channel_ref: re } = await one<{ channel_ref: string }>(
        'SELECT channel_ref FROM refunds WHERE transaction_id = ?',
        t.transactionOrderId,
      );
      await stripe.webhooksIdle();
      stripe.settleRefund(re, 'succeeded');
      await stripe.webhooksIdle();
      const ev = stripe.deliveries.filter((x) => x.type === 'refund.updated').at(-1);
      expect((await stripe.redeliver(ev?.eventId ?? '')).status).toBe(200);
      expect(Number((await notes()).n)).toBe(1);
    } finally {
      acct.setRefundMode('succeeded');
    }
  });

  it('a pending refund settled by refund.updated, delivered twice, is counted once', async () => {
    const t = await pay();
    acct.setRefundMode('pending');
    try {
      const r = await client(srv.url, m).post(`/payment/${m.apiKey}/refund`, {
        transactionOrderId: t.transactionOrderId,
        refundAmount: '10.00',
      });
      expect(r.body.data).toMatchObject({ refundStatus: 'PENDING' });
      const { channel_ref: re } = await one<{ channel_ref: string }>(
        'SELECT channel_ref FROM refunds WHERE transaction_id = ?',
        t.transactionOrderId,
      );
      await stripe.webhooksIdle();
      stripe.settleRefund(re, 'succeeded');
      await stripe.webhooksIdle();
      const ev = stripe.deliveries.filter((x) => x.type === 'refund.updated').at(-1);
      expect(ev?.status).toBe(200);
      expect((await stripe.redeliver(ev?.eventId ?? '')).status).toBe(200);
      expect(
        await one(
          'SELECT status, refunded_amount, refund_reserved FROM transactions WHERE id = ?',
          t.transactionOrderId,
        ),
      ).toEqual({ status: 400000, refunded_amount: 1000, refund_reserved: 0 });
      expect((await one<{ status: string }>('SELECT status FROM refunds WHERE channel_ref = ?', re)).status).toBe(
        'SUCCEEDED',
      );
    } finally {
      acct.setRefundMode('succeeded');
    }
  });

  it('a refund Stripe made but answered 500 (its id never learnt) is settled by charge.refunded through the paygate id it carries', async () => {
    const t = await pay();
    stripe.faults.inject({ kind: 'server_error', executed: true }, { match: { method: 'POST', path: '/v1/refunds' } });
    await client(srv.url, m).post(`/payment/${m.apiKey}/refund`, {
      transactionOrderId: t.transactionOrderId,
      refundAmount: '4.00',
    });
    await stripe.webhooksIdle();
    const made = [...acct.state.refunds.values()].at(-1);
    expect(stripe.deliveries.filter((x) => x.type === 'charge.refunded').at(-1)?.status).toBe(200);
    expect(await one('SELECT status, channel_ref FROM refunds WHERE transaction_id = ?', t.transactionOrderId)).toEqual(
      {
        status: 'SUCCEEDED',
        channel_ref: made?.id,
      },
    );
    expect(
      await one('SELECT status, refunded_amount, refund_reserved FROM transactions WHERE id = ?', t.transactionOrderId),
    ).toEqual({ status: 400010, refunded_amount: 400, refund_reserved: 0 });
  });

  it('a bad or missing signature answers 400 and changes nothing; the same bytes correctly signed settle it', async () => {
    stripe.faults.inject({ kind: 'processing' }, { match: { path: /\/confirm$/ } });
    const t = await pay();
    const { channel_ref: intent } = await one<{ channel_ref: string }>(
      'SELECT channel_ref FROM transactions WHERE id = ?',
      t.transactionOrderId,
    );
    await stripe.webhooksIdle();
    acct.setWebhookUrl(null);
    try {
      stripe.settleIntent(intent, 'succeeded');
    } finally {
      acct.setWebhookUrl(`${srv.url}/channel/stripe/${m.merchantId}/webhook`);
    }
    const event = stripe.events.filter((e) => (e as { type: string }).type === 'payment_intent.succeeded').at(-1);
    const payload = JSON.stringify(event, null, 2);
    const url = `${srv.url}/channel/stripe/${m.merchantId}/webhook`;
    const now = Math.floor(Date.now() / 1000);
    const post = (headers: Record<string, string>, body = payload) =>
      fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
    const status = async () =>
      (await one<{ status: number }>('SELECT status FROM transactions WHERE id = ?', t.transactionOrderId)).status;
    expect(
      (await post({ 'stripe-signature': signatureHeader(payload, 'whsec_not_the_merchants_secret', now) })).status,
    ).toBe(400);
    expect((await post({})).status).toBe(400);
    // Signed bytes, changed body (re-serialised): does not verify.
    expect(
      (await post({ 'stripe-signature': signatureHeader(payload, acct.webhookSecret, now) }, JSON.stringify(event)))
        .status,
    ).toBe(400);
    expect((await post({ 'stripe-signature': signatureHeader(payload, acct.webhookSecret, now - 3600) })).status).toBe(
      400,
    );
    expect(await status()).toBe(100000);
    const ok = await post({ 'stripe-signature': signatureHeader(payload, acct.webhookSecret, now) });
    expect(ok.status).toBe(200);
    expect(await status()).toBe(200000);
  });

  it('a signed event without what its type needs answers 400 naming the field, never a 500; an unknown type is acknowledged', async () => {
    const url = `${srv.url}/channel/stripe/${m.merchantId}/webhook`;
    const post = (event: unknown) => {
      const payload = JSON.stringify(event);
      return fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'stripe-signature': signatureHeader(payload, acct.webhookSecret, Math.floor(Date.now() / 1000)),
        },
        body: payload,
      });
    };
    const created = Math.floor(Date.now() / 1000);
    const malformed: Array<[unknown, string]> = [
      [null, 'malformed event: event'],
      [{ id: 'evt_1', type: 'payment_intent.succeeded', created, data: {} }, 'data.object'],
      [
        {
          id: 'evt_2',
          type: 'payment_intent.succeeded',
          created,
          data: { object: { id: { a: 1 }, status: 'succeeded' } },
        },
        'data.object.id',
      ],
      [
        {
          id: 'evt_3',
          type: 'charge.refunded',
          created,
          data: { object: { id: 'ch_1', amount_refunded: 100, refunds: { data: [null] } } },
        },
        'data.object.refunds.data.0',
      ],
      [
        { id: 'evt_4', type: 'refund.updated', created, data: { object: { id: 're_1\u0000', status: 'succeeded' } } },
        'data.object.id',
      ],
      [{ id: 'evt_5', type: 'refund.updated', data: { object: { id: 're_1', status: 'succeeded' } } }, 'created'],
    ];
    for (const [event, field] of malformed) {
      const res = await post(event);
      const body = (await res.json()) as { status: string; reason: string };
      expect(res.status, JSON.stringify(event)).toBe(400);
      expect(body.status).toBe('rejected');
      expect(body.reason, JSON.stringify(event)).toContain(field);
    }
    const other = await post({ id: 'evt_6', type: 'customer.updated', created, data: { object: { id: { a: 1 } } } });
    expect(other.status).toBe(200);
    expect(await other.json()).toEqual({ status: 'ignored' });
  });

  it('an event for an intent paygate has not recorded yet (webhook before the API answer) changes nothing; the answer settles it', async () => {
    stripe.faults.inject({ kind: 'webhook_first' }, { match: { path: /\/confirm$/ } });
    const t = await pay();
    expect(t.status).toBe('200000');
    await stripe.webhooksIdle();
    expect(stripe.deliveries.filter((x) => x.type === 'payment_intent.succeeded').at(-1)?.status).toBe(200);
    expect(
      (await one<{ status: number }>('SELECT status FROM transactions WHERE id = ?', t.transactionOrderId)).status,
    ).toBe(200000);
  });

  it('a merchant id holding NUL is an unknown merchant (404) on both engines, never a database message', async () => {
    for (const id of ['a%00b', `${m.merchantId}%00`]) {
      const res = await fetch(`${srv.url}/channel/stripe/${id}/webhook`, { method: 'POST', body: '{}' });
      const text = await res.text();
      expect(res.status, id).toBe(404);
      expect(JSON.parse(text), id).toEqual({ status: 'rejected', reason: 'unknown merchant' });
    }
  });

  it('a body over 512 KiB is a 413 in the API envelope (1000), not fastify’s own answer', async () => {
    const res = await fetch(`${srv.url}/channel/stripe/${m.merchantId}/webhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: `{"pad":"${'x'.repeat(512 * 1024)}"}`,
    });
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({
      rtn_code: '1000',
      rtn_msg: 'request body is larger than 512 KiB',
      success: false,
    });
  });

  it('a fault while handling an event is a 9999 with the request id, never the internal message', async () => {
    const app = await testApp();
    try {
      vi.spyOn(app.ctx.store, 'getMerchant').mockRejectedValue(
        new Error('invalid byte sequence for encoding "UTF8": 0x00'),
      );
      const server = await buildServer(app.ctx, { logLevel: 'silent' });
      try {
        const res = await server.inject({ method: 'POST', url: '/channel/stripe/mer_1/webhook', payload: '{}' });
        expect(res.statusCode).toBe(500);
        expect(res.json()).toMatchObject({ rtn_code: '9999', success: false });
        expect(res.json().rtn_msg).toContain(res.headers['x-request-id']);
        expect(res.body).not.toMatch(/UTF8|byte sequence|statusCode/);
      } finally {
        await server.close();
      }
    } finally {
      await app.close();
    }
  });
});
